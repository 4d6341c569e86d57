/**
 * One long string must not freeze the server. Every string field of every route
 * (body fields, header-value maps, query and path parameters), read from the OpenAPI document the
 * route schemas generate (so a new route is covered without editing this file), gets 64 KB values
 * built to make a backtracking pattern work hard. Each must be answered with a 4xx, and none may hold
 * the server: lengths are checked before patterns, and every pattern is linear
 * (test/reliability/linear-patterns.test.ts proves that without a clock; the deadline here is only a
 * hang guard, far above a loaded machine's answer time).
 */
import { type Harness, type Tenant, createTenant, rawRequest, useServer } from '../helpers';

const SIZE = 64 * 1024;
/**
 * A hang guard, not a speed check: an answer takes a few milliseconds on an idle machine (up to about
 * 200 on a loaded CI machine), so 10 s is 50x that. Whether a pattern is linear is proven without a
 * clock by test/reliability/linear-patterns.test.ts; this bound only catches a request that holds
 * the server (an exponential pattern, or a length checked after the pattern), which takes minutes.
 */
const BUDGET_MS = 10_000;

/** Prefixes a pattern may accept many times, each followed by an end it must reject. */
const ADVERSARIAL_VALUES: [string, string][] = [
	['letters then a space', `${'a'.repeat(SIZE)} `],
	['http URL then a space', `http://${'a'.repeat(SIZE)} `],
	['path then a control character', `/${'a'.repeat(SIZE)}\u0000`],
	['dotted labels then a bad end', `${'a.'.repeat(SIZE / 2)}-`],
	['language subtags then a bad end', `en${'-a1'.repeat(SIZE / 3)}!`],
	['hyphens then a bad end', `a${'-'.repeat(SIZE)}!`],
	['URL with many slashes then a space', `http://a${'/a'.repeat(SIZE / 2)} `],
];

interface Field {
	method: string;
	path: string;
	where: 'body' | 'query' | 'path' | 'header';
	/** Property name; for a map of strings, [map, key]. */
	name: string | [string, string];
	auth: 'admin' | 'tenant' | 'none';
}

let h: Harness;
let tenant: Tenant;
let fields: Field[] = [];

useServer((started) => (h = started), { enableVariables: true });

function acceptsString(schema: any): boolean {
	const type = schema?.type;
	return type === 'string' || (Array.isArray(type) && type.includes('string'));
}

function authOf(operation: any): Field['auth'] {
	const names = (operation.security ?? []).flatMap((entry: object) => Object.keys(entry));
	if (names.includes('adminToken')) return 'admin';
	if (names.includes('tenantToken')) return 'tenant';
	return 'none';
}

/** Every string field of every operation in the document. */
function stringFields(doc: any): Field[] {
	const found: Field[] = [];
	for (const [path, methods] of Object.entries<any>(doc.paths)) {
		for (const [method, operation] of Object.entries<any>(methods)) {
			const base = { method: method.toUpperCase(), path, auth: authOf(operation) };
			for (const parameter of operation.parameters ?? []) {
				if (acceptsString(parameter.schema))
					found.push({ ...base, where: parameter.in, name: parameter.name });
			}
			const body = operation.requestBody?.content?.['application/json']?.schema;
			for (const [name, schema] of Object.entries<any>(body?.properties ?? {})) {
				if (acceptsString(schema)) found.push({ ...base, where: 'body', name });
				if (acceptsString(schema?.additionalProperties))
					found.push({ ...base, where: 'body', name: [name, 'X-Adversarial'] });
			}
			// A body that is a map of values (the public form).
			if (acceptsString(body?.additionalProperties))
				found.push({ ...base, where: 'body', name: 'message' });
		}
	}
	return found;
}

beforeAll(async () => {
	tenant = await createTenant(h);
	const doc = (await h.anon.get('/openapi.json')).data;
	fields = stringFields(doc);
});

function requestFor(field: Field, value: string) {
	const params: Record<string, string> = {};
	const query = new URLSearchParams();
	let body: Record<string, unknown> | undefined;
	if (field.where === 'path') params[field.name as string] = value;
	if (field.where === 'query') query.set(field.name as string, value);
	if (field.where === 'body') {
		body = Array.isArray(field.name)
			? { [field.name[0]]: { [field.name[1]]: value } }
			: { [field.name]: value };
	}
	const path = field.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
		encodeURIComponent(params[name] ?? (name === 'tenantId' ? tenant.id : 'x')),
	);
	const headers: Record<string, string> = {};
	// A header cannot carry control characters: those become letters.
	if (field.where === 'header')
		headers[field.name as string] = value.replace(/[^\t\u0020-\u007e]/g, 'a');
	if (field.auth === 'admin') headers.authorization = `Bearer ${h.adminToken}`;
	if (field.auth === 'tenant') headers.authorization = `Bearer ${tenant.token}`;
	if (body !== undefined) headers['content-type'] = 'application/json';
	const search = query.size > 0 ? `?${query}` : '';
	return rawRequest(`${h.url}${path}${search}`, {
		method: field.method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
}

/** The quickest of up to three tries: a loaded machine can delay one, a slow pattern slows all three. */
async function quickest(field: Field, value: string): Promise<{ ms: number; status: number }> {
	let best = { ms: Infinity, status: 0 };
	for (let attempt = 0; attempt < 3 && best.ms >= BUDGET_MS; attempt++) {
		const started = performance.now();
		const res = await requestFor(field, value);
		const ms = performance.now() - started;
		if (ms < best.ms) best = { ms, status: res.status };
	}
	return best;
}

describe('64 KB adversarial values in every string field', () => {
	it('the route schemas yield the string fields this test feeds', () => {
		const names = fields.map(
			(f) => `${f.method} ${f.path} ${f.where}:${[f.name].flat().join('.')}`,
		);
		// A few known ones, so that a document that stopped listing fields fails here.
		expect(names).toEqual(
			expect.arrayContaining([
				'POST /api/settings body:contact_form_webhook_url',
				'POST /api/settings body:contact_form_webhook_headers.X-Adversarial',
				'POST /api/page body:url',
				'POST /api/page body:locale',
				'POST /api/tenant body:id',
				'POST /api/tenant body:fqdn',
				'PUT /api/variables body:key',
				'POST /forms/{tenantId}/contact path:tenantId',
				'POST /forms/{tenantId}/contact body:message',
			]),
		);
		expect(fields.length).toBeGreaterThanOrEqual(30);
	});

	it(`each is answered with a 4xx within ${BUDGET_MS} ms`, async () => {
		const slow: string[] = [];
		for (const field of fields) {
			for (const [label, value] of ADVERSARIAL_VALUES) {
				const { ms, status } = await quickest(field, value);
				const name = `${field.method} ${field.path} ${field.where}:${[field.name].flat().join('.')} (${label})`;
				if (!(status >= 400 && status < 500)) slow.push(`${name}: status ${status}`);
				if (ms >= BUDGET_MS) slow.push(`${name}: ${Math.round(ms)} ms`);
			}
		}
		expect(slow).toEqual([]);
	}, 120_000);
});
