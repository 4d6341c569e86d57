/**
 * Nothing lost on upgrade: a data directory written before canonical page urls (the fixture: schema
 * and rows of that server, test/fixtures/pre-canonical-urls.sql) started with today's server. Every
 * page, live or archived, is kept; each is reachable by the url it is now listed under, on every
 * route; where old urls collapse into one, one page keeps the url and the others get the documented
 * names; the log names every move; a second start changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import {
	client,
	expectOk,
	issueToken,
	makeDataDir,
	removeDataDirs,
	restart,
	start,
	stopAll,
	type Harness,
} from '../helpers';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'pre-canonical-urls.sql');

/** Every page of the fixture after the migration: [old url, new url, name, live]. */
const EXPECTED: Array<[string, string, string, string, boolean]> = [
	['acme', '/About', '/about--2', 'About', true],
	['acme', '/about', '/about', 'about', true],
	['acme', '/caf%C3%A9', '/caf\u00e9--2', 'Cafe encoded', true],
	['acme', '/caf\u00e9', '/caf\u00e9', 'Cafe', true],
	['acme', '/blog/', '/blog', 'Blog', true],
	['acme', '/Pricing', '/pricing', 'Pricing', true],
	['acme', '/Team', '/team--2', 'Team old', false],
	['acme', '/team', '/team', 'Team', true],
	['acme', '/x%2541', '/renamed-9', 'Escaped', true],
	['acme', '/xa', '/xa', 'xa', true],
	['acme', '/search?q=1', '/renamed-11', 'Query', true],
	['acme', '/a/../b', '/renamed-12', 'Dots', true],
	['acme', '/so\u00adft', '/renamed-13', 'Soft', true],
	['acme', '/\uff37ide', '/renamed-14', 'Wide', true],
	['acme', '/', '/', 'Home', true],
	['acme', '/%2F', '/renamed-16', 'Home2', true],
	['acme', '/news//', '/news--2', 'Root trailing', true],
	['acme', '/news', '/news', 'News', true],
	['acme', '/NEWS/', '/news--3', 'News2', true],
	['other', '/About', '/about', 'About other', true],
	['other', '/keep', '/keep', 'Keep', true],
];

const logLines: any[] = [];
const logStream = new Writable({
	write(chunk: Buffer, _encoding, callback) {
		for (const line of chunk.toString('utf8').split('\n')) {
			if (line.trim() !== '') logLines.push(JSON.parse(line));
		}
		callback();
	},
});

let h: Harness;

beforeAll(async () => {
	const dataDir = makeDataDir();
	const db = new Database(path.join(dataDir, 'site.db'));
	db.exec(fs.readFileSync(FIXTURE, 'utf8'));
	db.close();
	h = await start({ dataDir, logger: 'info', logStream } as any);
});

afterAll(async () => {
	await stopAll();
	removeDataDirs();
});

async function tenantApi(id: string) {
	return client(h.url, await issueToken(h, id));
}

/** A tenant's live pages as url -> [name, templates]. */
async function livePages(id: string): Promise<Record<string, [string, unknown]>> {
	const listed = expectOk(
		await (await tenantApi(id)).get('/api/pages', { params: { per_page: 100 } }),
	);
	return Object.fromEntries(
		listed.data.map((page: any) => [page.url, [page.name, page.templates]]),
	);
}

test('every page is kept, live ones listed under their new url with their content', async () => {
	for (const tenant of ['acme', 'other']) {
		const pages = await livePages(tenant);
		const expected = EXPECTED.filter(([t, , , , live]) => t === tenant && live);
		expect(Object.keys(pages).sort()).toEqual(expected.map(([, , to]) => to).sort());
		for (const [, from, to, name] of expected) {
			expect({ from, to, name: pages[to][0] }).toEqual({ from, to, name });
		}
	}
	// Content written by the old server stays with its page.
	const acme = await livePages('acme');
	expect(acme['/about--2'][1]).toEqual([{ type: 'text', text: 'about capital' }]);
	expect(acme['/about'][1]).toEqual([{ type: 'text', text: 'about lower' }]);
	expect(acme['/caf\u00e9--2'][1]).toEqual([{ type: 'text', text: 'cafe encoded' }]);
	expect(acme['/pricing'][1]).toEqual([{ type: 'text', text: 'pricing' }]);
});

test('the log names every page that moved, and the page that kept the url of a duplicate', () => {
	const moves = logLines
		.filter((line) => line.reason !== undefined && line.from !== undefined)
		.map(({ tenant, from, to, reason, kept_by }) => ({ tenant, from, to, reason, kept_by }));
	// In the fixture each url kept by one page was already canonical: kept_by is the url itself.
	const duplicate = /--\d$/;
	const expected = EXPECTED.filter(([, from, to]) => from !== to).map(([tenant, from, to]) => ({
		tenant,
		from,
		to,
		reason: to.startsWith('/renamed-') ? 'refused' : duplicate.test(to) ? 'duplicate' : 'canonical',
		kept_by: duplicate.test(to) ? to.replace(duplicate, '') : undefined,
	}));
	expect(moves).toEqual(expect.arrayContaining(expected));
	expect(moves).toHaveLength(expected.length);
	expect(moves).toContainEqual({
		tenant: 'acme',
		from: '/About',
		to: '/about--2',
		reason: 'duplicate',
		kept_by: '/about',
	});
});

test('each listed url reaches its page and no other: listing, content, archive, erase', async () => {
	const api = await tenantApi('acme');
	const before = await livePages('acme');
	const urls = Object.keys(before);
	for (const url of urls) {
		const found = expectOk(await api.get('/api/pages', { params: { url } }));
		expect({ url, found: found.data.map((page: any) => page.name) }).toEqual({
			url,
			found: [before[url][0]],
		});
		expectOk(await api.put('/api/content', { url, templates: [{ type: 'text', text: url }] }));
	}
	const after = await livePages('acme');
	for (const url of urls) {
		expect({ url, templates: after[url][1] }).toEqual({
			url,
			templates: [{ type: 'text', text: url }],
		});
	}
	// The issue's case: /Pricing names the migrated page, the only one at /pricing.
	expectOk(await api.delete('/api/page', { data: { url: '/Pricing' } }));
	expect(Object.keys(await livePages('acme'))).not.toContain('/pricing');
	// The archived duplicate is erased by its new url, the live /team untouched.
	expectOk(await api.delete('/api/page', { data: { url: '/team--2', permanently: 1 } }));
	expect(Object.keys(await livePages('acme'))).toContain('/team');
});

test('a second start runs no migration and keeps every row', async () => {
	const logged = logLines.length;
	h = await restart(h, { logger: 'info', logStream } as any);
	expect(logLines.slice(logged).filter((line) => line.reason !== undefined)).toEqual([]);
	await stopAll();
	const db = new Database(path.join(h.dataDir, 'site.db'), { readonly: true });
	const rows = db
		.prepare(
			'SELECT tenants.id AS tenant, pages.url, pages.name FROM pages JOIN tenants ON tenants.pk = pages.tenant_pk',
		)
		.all() as Array<{ tenant: string; url: string; name: string }>;
	// Every migration ran (the page urls are the 3rd and, for default-ignorable code points, the 5th;
	// tokens' issued_for the 4th).
	expect(db.pragma('user_version', { simple: true })).toBe(5);
	db.close();
	// All but the one erased above (/team--2); the archived /pricing is still a row.
	const kept = EXPECTED.filter(([, , to]) => to !== '/team--2');
	expect(rows.map(({ tenant, url, name }) => [tenant, url, name]).sort()).toEqual(
		kept.map(([tenant, , to, name]) => [tenant, to, name]).sort(),
	);
});
