/**
 * docs/api-contract.md and the OpenAPI document describe the same API: every call (method and path)
 * and every query parameter of one is in the other, and the document marks as extensions exactly the
 * calls the contract lists under "Extensions of the reference server".
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { type Harness, useServer } from '../helpers';

const CONTRACT_FILE = path.join(__dirname, '..', '..', '..', 'docs', 'api-contract.md');
const EXTENSIONS_HEADING = '## Extensions of the reference server';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface DocumentedCall {
	call: string;
	/** The rest of the table row: body, query and answer. */
	row: string;
	extension: boolean;
}

/** The first cell of every table row that names a call, e.g. "`GET /api/pages`". */
function contractCalls(markdown: string): DocumentedCall[] {
	const extensionsAt = markdown.indexOf(EXTENSIONS_HEADING);
	const calls: DocumentedCall[] = [];
	let offset = 0;
	for (const line of markdown.split('\n')) {
		const match = /^\|\s*`([A-Z]+) (\/[^`\s]*)`\s*\|(.*)$/.exec(line);
		if (match)
			calls.push({
				call: `${match[1]} ${match[2]}`,
				row: match[3],
				extension: extensionsAt >= 0 && offset > extensionsAt,
			});
		offset += line.length + 1;
	}
	return calls;
}

let h: Harness;
let doc: {
	paths: Record<
		string,
		Record<string, { parameters?: Array<{ in: string; name: string }>; 'x-extension'?: boolean }>
	>;
};
const documented = contractCalls(fs.readFileSync(CONTRACT_FILE, 'utf8'));

useServer((started) => (h = started), { enableVariables: true });

beforeAll(async () => {
	doc = (await h.anon.get('/openapi.json')).data;
});

function openapiCalls() {
	return Object.entries(doc.paths).flatMap(([route, operations]) =>
		Object.entries(operations)
			.filter(([method]) => METHODS.includes(method))
			.map(([method, operation]) => ({ call: `${method.toUpperCase()} ${route}`, operation })),
	);
}

test('the contract document names calls in its tables', () => {
	expect(documented.length).toBeGreaterThan(15);
	expect(documented.some((c) => c.extension)).toBe(true);
});

test('every call of the OpenAPI document is in docs/api-contract.md', () => {
	const inContract = new Set(documented.map((c) => c.call));
	expect(
		openapiCalls()
			.map((c) => c.call)
			.filter((call) => !inContract.has(call)),
	).toEqual([]);
});

test('every call of docs/api-contract.md is in the OpenAPI document', () => {
	const inOpenapi = new Set(openapiCalls().map((c) => c.call));
	expect(documented.map((c) => c.call).filter((call) => !inOpenapi.has(call))).toEqual([]);
});

test('every query parameter is named in the call’s row of the contract', () => {
	const rows = new Map(documented.map((c) => [c.call, c.row]));
	const missing = openapiCalls().flatMap(({ call, operation }) =>
		(operation.parameters ?? [])
			.filter((p) => p.in === 'query' && !rows.get(call)?.includes(`\`${p.name}\``))
			.map((p) => `${call} ?${p.name}`),
	);
	expect(missing).toEqual([]);
});

test('the calls the contract lists as extensions are the ones the document marks x-extension', () => {
	const marked = openapiCalls()
		.filter(
			({ call, operation }) =>
				operation['x-extension'] === true && !call.endsWith('/api/variables'),
		)
		.map((c) => c.call)
		.sort();
	// The variables calls are decided by the contract (x-contract-decided), so they sit in its main table.
	expect(
		documented
			.filter((c) => c.extension)
			.map((c) => c.call)
			.sort(),
	).toEqual(marked);
});
