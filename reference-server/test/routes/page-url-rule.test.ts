/**
 * A page url (the body of POST /api/page and the url query of GET /api/pages): what lib/page-url.ts
 * refuses and a pattern can say, the OpenAPI document refuses too; what it cannot say (percent-encoded
 * characters, compatibility forms) its description names. A sample of values the document allows is
 * accepted.
 */
import fc from 'fast-check';
import { detailFields, expectError, expectOk, pageBody } from '../helpers';
import {
	documentAjv,
	queryParameterSchema,
	requestBodySchema,
	useDocumentServer,
} from '../helpers/openapi-schemas';

const server = useDocumentServer();

/** Refused by the server's page-url rules; each one a pattern can express. */
const REFUSED = [
	'/a?b',
	'/a#b',
	'/x/../y',
	'/x/.',
	'/x\\..\\y',
	'/\\evil.com',
	'//evil.com',
	'/a\u00adb',
	'/a\u200bb',
	'/a\ufeffb',
	'/a\u200eb',
	'/a\u200fb',
	'/a\u061cb',
	'/a\u202eb',
	'/a\u2066b',
	'/a\u0085b',
	'/a\u009bb',
];
/** Refused by the server, allowed by the pattern: the description names them. */
const REFUSED_AT_RUN_TIME = [
	'/a%3Fb',
	'/x/%2e%2e/y',
	'/%252e%252e/y',
	'/x%2541',
	'/%5Cevil.com',
	'/a%E2%80%AEb',
	'/a%C2%85b',
	'/\uff21bc',
];

const bodyAllows = (url: string) =>
	documentAjv().compile(requestBodySchema(server.doc, 'POST', '/api/page'))(
		pageBody(url),
	) as boolean;
const queryAllows = (url: string) =>
	documentAjv().compile(queryParameterSchema(server.doc, 'GET', '/api/pages', 'url'))(
		url,
	) as boolean;

it('what the server refuses and a pattern can say, the document refuses (body and query)', async () => {
	for (const url of REFUSED) {
		expect({ url, body: bodyAllows(url), query: queryAllows(url) }).toEqual({
			url,
			body: false,
			query: false,
		});
		const created = expectError(
			await server.tenant.api.post('/api/page', pageBody(url)),
			400,
			'validation_failed',
		);
		expect({ url, fields: detailFields(created) }).toEqual({ url, fields: ['url'] });
		const listed = expectError(
			await server.tenant.api.get('/api/pages', { params: { url } }),
			400,
			'validation_failed',
		);
		expect({ url, fields: detailFields(listed) }).toEqual({ url, fields: ['url'] });
	}
});

it('what only the server can refuse is allowed by the pattern and named in the description', async () => {
	const description = (requestBodySchema(server.doc, 'POST', '/api/page') as any).properties.url
		.description as string;
	const queryDescription = (server.doc as any).paths['/api/pages'].get.parameters.find(
		(parameter: { name: string }) => parameter.name === 'url',
	).description as string;
	for (const text of [description, queryDescription]) {
		expect(text).toMatch(/percent-encoded/);
		expect(text).toMatch(/encode another escape \(%2541, %252e\)/);
		expect(text).toMatch(/fullwidth/);
	}
	for (const url of REFUSED_AT_RUN_TIME) {
		expect({ url, body: bodyAllows(url), query: queryAllows(url) }).toEqual({
			url,
			body: true,
			query: true,
		});
		const body = expectError(
			await server.tenant.api.post('/api/page', pageBody(url)),
			400,
			'validation_failed',
		);
		expect({ url, fields: detailFields(body) }).toEqual({ url, fields: ['url'] });
	}
});

it('a sample of page urls the document allows is accepted', async () => {
	const segment = fc.stringMatching(/^[a-z0-9._~-]{1,12}$/);
	const urls = fc.sample(
		fc
			.array(segment, { minLength: 1, maxLength: 4 })
			.map((segments) => `/${segments.join('/')}`)
			.filter(bodyAllows),
		{ numRuns: 30, seed: 34 },
	);
	for (const url of new Set(urls)) {
		expect({ url, allowed: queryAllows(url) }).toEqual({ url, allowed: true });
		const created = await server.tenant.api.post('/api/page', pageBody(url));
		expect({ url, status: created.status }).toEqual({ url, status: 201 });
		const listed = expectOk(await server.tenant.api.get('/api/pages', { params: { url } }));
		expect({ url, found: listed.data.length }).toEqual({ url, found: 1 });
	}
});
