/**
 * Which page keeps a canonical url that several old urls collapse into, and the names the others
 * get, where the fixture of test/reliability/upgrade-page-urls.test.ts has no such case.
 */
import { openDatabase } from '../../src/db/open';
import { runMigrations } from '../../src/db/migrations';
import { migratePageUrls, type PageUrlChange } from '../../src/db/page-url-migration';

function databaseWith(pages: Array<[url: string, live: boolean]>) {
	const db = openDatabase(':memory:');
	db.prepare(
		"INSERT INTO tenants (id, created_at, updated_at) VALUES ('t', '2026-01-01', '2026-01-01')",
	).run();
	const insert = db.prepare(
		"INSERT INTO pages (tenant_pk, url, name, locale, created_at, updated_at, deleted_at) VALUES (1, ?, ?, 'en', '2026-01-01', '2026-01-01', ?)",
	);
	for (const [url, live] of pages) insert.run(url, url, live ? null : '2026-01-02');
	return db;
}

const urlsByName = (db: ReturnType<typeof openDatabase>) =>
	Object.fromEntries(
		(db.prepare('SELECT name, url FROM pages ORDER BY id').all() as any[]).map((row) => [
			row.name,
			row.url,
		]),
	);

test('a live page keeps the url before an archived one, even one already canonical', () => {
	const db = databaseWith([
		['/contact', false],
		['/Contact', true],
	]);
	expect(migratePageUrls(db)).toEqual([
		{ tenant: 't', from: '/Contact', to: '/contact', reason: 'canonical' },
		{ tenant: 't', from: '/contact', to: '/contact--2', reason: 'duplicate', kept_by: '/Contact' },
	]);
	expect(urlsByName(db)).toEqual({ '/contact': '/contact--2', '/Contact': '/contact' });
});

test('among equals the oldest keeps the url; names already taken are stepped over', () => {
	const db = databaseWith([
		['/Shop/', true],
		['/SHOP', true],
		['/shop--2', true],
		['/renamed-5', true],
		['/a?b', true],
		['/', true],
		['//', true],
	]);
	migratePageUrls(db);
	expect(urlsByName(db)).toEqual({
		'/Shop/': '/shop',
		'/SHOP': '/shop--3',
		'/shop--2': '/shop--2',
		'/renamed-5': '/renamed-5',
		'/a?b': '/renamed-5--2',
		'/': '/',
		'//': '/renamed-7',
	});
	// Run again: nothing left to move.
	expect(migratePageUrls(db)).toEqual([]);
});

test('a url stored by the server between canonical urls and fixed points (/x%41, from /x%2541) joins /xa', () => {
	const db = databaseWith([
		['/x%41', true],
		['/xa', true],
		['/y%41', true],
	]);
	expect(migratePageUrls(db)).toEqual([
		{ tenant: 't', from: '/x%41', to: '/xa--2', reason: 'duplicate', kept_by: '/xa' },
		{ tenant: 't', from: '/y%41', to: '/ya', reason: 'canonical' },
	]);
});

test('a database from before default-ignorable code points were refused: such a url is moved and reported, none dropped', () => {
	const db = databaseWith([
		['/about', true],
		['/about\uFE0F', true],
		['/about\u{E0041}', true],
		['/caf\u00E9', true],
	]);
	// As a server of schema version 4 left it: migration 5 runs on the next start.
	db.pragma('user_version = 4');
	const reported: PageUrlChange[] = [];
	runMigrations(db, (change) => reported.push(change));
	expect(reported).toEqual([
		{ tenant: 't', from: '/about\uFE0F', to: '/renamed-2', reason: 'refused' },
		{ tenant: 't', from: '/about\u{E0041}', to: '/renamed-3', reason: 'refused' },
	]);
	expect(urlsByName(db)).toEqual({
		'/about': '/about',
		'/about\uFE0F': '/renamed-2',
		'/about\u{E0041}': '/renamed-3',
		'/caf\u00E9': '/caf\u00E9',
	});
});
