/**
 * No regular expression of the package or the reference server can be made to backtrack: recheck
 * (a ReDoS checker, automata and fuzzing, seeded) judges each one safe. The expressions come from
 * where they live, so a new one is checked without editing this file:
 * - every regex literal in nodes/, credentials/ and reference-server/src/ (TypeScript's parser);
 * - every `regex` in the nodes' and credentials' descriptions (n8n runs those on what users type);
 * - every `pattern` in the reference server's OpenAPI document (its route schemas, run by ajv);
 * - the pattern of every `new RegExp(…)`, named in PATTERN_CONSTRUCTIONS below: a new one fails
 *   until it is named there.
 * A timed request cannot tell a linear pattern from a quadratic one on a loaded machine; this can.
 */
import { readdirSync, readFileSync } from 'fs';
import { join, relative } from 'path';
import { check } from 'recheck';
import * as ts from 'typescript';

import { TENANT_ID_PATTERN } from '../../nodes/shared/tenantScope';
import { PAGE_URL_PATTERN as NODE_PAGE_URL_PATTERN } from '../../nodes/SiteTenant/actions/page/sitePath';
import { PAGE_URL_PATTERN as SERVER_PAGE_URL_PATTERN } from '../../reference-server/src/lib/page-url';
import { type TestSite, startTestSite } from '../harness/reference-server';

const ROOT = join(__dirname, '..', '..');
const SOURCE_TREES = ['nodes', 'credentials', 'reference-server/src'];

interface Found {
	where: string;
	source: string;
	flags: string;
}

/** Each `new RegExp(…)` in the sources, by file: what it compiles, or why that is not checked. */
const PATTERN_CONSTRUCTIONS: Record<string, Array<Omit<Found, 'where'> | { unchecked: string }>> = {
	'nodes/shared/target.ts': [{ source: TENANT_ID_PATTERN, flags: '' }],
	'nodes/SiteContactFormTrigger/manualSecret.ts': [{ source: TENANT_ID_PATTERN, flags: '' }],
	'nodes/SiteTenant/actions/page/sitePath.ts': [{ source: NODE_PAGE_URL_PATTERN, flags: 'i' }],
	'reference-server/src/lib/page-url.ts': [{ source: SERVER_PAGE_URL_PATTERN, flags: 'u' }],
	'reference-server/src/plugins/errors.ts': [
		{ unchecked: "a route's own path: its text escaped, each :param as [^/]+ between slashes" },
	],
};

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
	});
}

/** Regex literals, and the files with `new RegExp(…)` (how many in each). */
function scanSources(): { literals: Found[]; constructions: Record<string, number> } {
	const literals: Found[] = [];
	const constructions: Record<string, number> = {};
	for (const tree of SOURCE_TREES) {
		for (const file of sourceFiles(join(ROOT, tree))) {
			const name = relative(ROOT, file);
			const text = readFileSync(file, 'utf8');
			const parsed = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
			const visit = (node: ts.Node): void => {
				if (ts.isRegularExpressionLiteral(node)) {
					const end = node.text.lastIndexOf('/');
					const line = parsed.getLineAndCharacterOfPosition(node.getStart()).line + 1;
					literals.push({
						where: `${name}:${line}`,
						source: node.text.slice(1, end),
						flags: node.text.slice(end + 1),
					});
				}
				if (
					ts.isNewExpression(node) &&
					ts.isIdentifier(node.expression) &&
					node.expression.text === 'RegExp'
				)
					constructions[name] = (constructions[name] ?? 0) + 1;
				ts.forEachChild(node, visit);
			};
			visit(parsed);
		}
	}
	return { literals, constructions };
}

/** Every string under `key` anywhere in `value`. */
function stringsUnder(key: string, value: unknown, found: string[] = []): string[] {
	if (Array.isArray(value)) for (const entry of value) stringsUnder(key, entry, found);
	else if (value !== null && typeof value === 'object') {
		for (const [name, entry] of Object.entries(value)) {
			if (name === key && typeof entry === 'string') found.push(entry);
			else stringsUnder(key, entry, found);
		}
	}
	return found;
}

/** The `regex` strings of every node's and credential's description. */
async function descriptionRegexes(): Promise<Found[]> {
	const files = [
		...sourceFiles(join(ROOT, 'nodes')).filter((file) => file.endsWith('.node.ts')),
		...sourceFiles(join(ROOT, 'credentials')).filter((file) => file.endsWith('.credentials.ts')),
	];
	const found: Found[] = [];
	for (const file of files) {
		const module = (await import(file)) as Record<string, unknown>;
		for (const exported of Object.values(module)) {
			if (typeof exported !== 'function') continue;
			const instance = new (exported as new () => object)();
			for (const source of stringsUnder('regex', instance))
				found.push({ where: `${relative(ROOT, file)} (description)`, source, flags: '' });
		}
	}
	return found;
}

let site: TestSite;
beforeAll(async () => {
	site = await startTestSite();
});
afterAll(async () => site?.close());

async function openApiPatterns(): Promise<Found[]> {
	const doc = (await site.admin.get('/openapi.json')).data;
	// ajv compiles schema patterns with the u flag (its unicodeRegExp default).
	return stringsUnder('pattern', doc).map((source) => ({
		where: 'the OpenAPI document',
		source,
		flags: 'u',
	}));
}

/**
 * recheck's fuzzer bounds each trial by steps and by milliseconds; on a loaded machine a millisecond
 * bound cut trials short and judged a linear pattern polynomial. Steps alone, from a fixed seed, give
 * the same verdict on any machine.
 */
const DETERMINISTIC = {
	randomSeed: 1,
	timeout: null,
	attackTimeout: null,
	incubationTimeout: null,
	seedingTimeout: null,
} as const;

describe('every regular expression is linear', () => {
	it('each new RegExp(…) is named here, with what it compiles', () => {
		const { constructions } = scanSources();
		const named = Object.fromEntries(
			Object.entries(PATTERN_CONSTRUCTIONS).map(([file, entries]) => [file, entries.length]),
		);
		expect(constructions).toEqual(named);
	});

	it('recheck judges each one safe', async () => {
		const named = Object.entries(PATTERN_CONSTRUCTIONS).flatMap(([where, entries]) =>
			entries.flatMap((entry) => ('source' in entry ? [{ where, ...entry }] : [])),
		);
		const all = [
			...scanSources().literals,
			...(await descriptionRegexes()),
			...(await openApiPatterns()),
			...named,
		];
		// The sources hold dozens; a scan that found few has stopped seeing them.
		expect(all.length).toBeGreaterThan(50);
		expect(all.filter((found) => found.where === 'the OpenAPI document').length).toBeGreaterThan(3);
		expect(all.filter((found) => found.where.endsWith('(description)')).length).toBeGreaterThan(1);

		const places = new Map<string, { found: Found; where: string[] }>();
		for (const found of all) {
			const key = `${found.flags} ${found.source}`;
			const entry = places.get(key) ?? { found, where: [] };
			entry.where.push(found.where);
			places.set(key, entry);
		}
		const unsafe: string[] = [];
		for (const { found, where } of places.values()) {
			const verdict = await check(found.source, found.flags, DETERMINISTIC);
			if (verdict.status !== 'safe') {
				const detail =
					verdict.status === 'vulnerable'
						? `${verdict.complexity.type}, e.g. ${verdict.attack.pattern}`
						: verdict.status;
				unsafe.push(`${where.join(', ')}: /${found.source}/${found.flags}: ${detail}`);
			}
		}
		expect(unsafe).toEqual([]);
	}, 300_000);
});
