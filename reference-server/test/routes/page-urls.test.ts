/**
 * One page, one URL: every way a person writes /about or /café reaches the one page, or is refused
 * naming the url, never a second look-alike page.
 */
import fc from 'fast-check';
import {
	type Harness,
	type Tenant,
	allPages,
	createTenant,
	detailFields,
	expectError,
	expectOk,
	useServer,
} from '../helpers';
import { rawPageUrl } from '../helpers/page-urls';

let h: Harness;
useServer((started) => {
	h = started;
});

const page = (url: string) => ({ name: 'Page', url, locale: 'en' });

test('spellings of /about and /café that name the same page reach it: one page each', async () => {
	const t = await createTenant(h);
	expect(expectOk(await t.api.post('/api/page', page('/about')), 201).page.url).toBe('/about');
	const cafe = '/caf\u00e9';
	expect(expectOk(await t.api.post('/api/page', page(cafe)), 201).page.url).toBe(cafe);
	const same = [
		['/About', '/about'],
		['/about/', '/about'],
		['/ABOUT//', '/about'],
		['/%61bout', '/about'],
		['/cafe\u0301', cafe], // NFD
		['/caf%C3%A9', cafe], // percent-encoded NFC
		['/cafe%CC%81', cafe], // percent-encoded NFD
		['/CAF\u00c9', cafe],
		['/%41bout/', '/about'],
	];
	for (const [spelling, canonical] of same) {
		// Creating it again is a conflict on the one page...
		const again = await t.api.post('/api/page', page(spelling));
		expect({ spelling, message: expectError(again, 409, 'conflict').message }).toEqual({
			spelling,
			message: `A page with url "${canonical}" already exists.`,
		});
		// ...and reading it by that spelling finds it.
		const listed = expectOk(await t.api.get('/api/pages', { params: { url: spelling } }));
		expect({ spelling, urls: listed.data.map((p: { url: string }) => p.url) }).toEqual({
			spelling,
			urls: [canonical],
		});
	}
	const all = expectOk(await t.api.get('/api/pages'));
	expect(all.data.map((p: { url: string }) => p.url).sort()).toEqual(['/about', cafe]);
});

test('what a browser never sends or a person cannot tell apart is refused, naming url', async () => {
	const t = await createTenant(h);
	for (const url of [
		'/about?x=1',
		'/about#top',
		'/a/./about',
		'/a/../about',
		'/ab\u200bout', // zero-width space
		'/ab\u00adout', // soft hyphen
		'/\uff41bout', // fullwidth a
	]) {
		const refused = expectError(await t.api.post('/api/page', page(url)), 400, 'validation_failed');
		expect({ url, fields: refused.details.map((d: { field: string }) => d.field) }).toEqual({
			url,
			fields: ['url'],
		});
	}
	expect(expectOk(await t.api.get('/api/pages')).data).toEqual([]);
	// The Kelvin sign is a K in Unicode's own normal form: it names the page /kelvin.
	expect(expectOk(await t.api.post('/api/page', page('/\u212aelvin')), 201).page.url).toBe(
		'/kelvin',
	);
});

/** Default-ignorable code points after /about (issue's look-alikes): each would list as a second /about. */
const IGNORABLE = [
	'\uFE0F', // variation selector 16
	'\uFE00', // variation selector 1
	'\u{E0041}', // tag latin capital letter a
	'\u{E0001}', // language tag
	'\u180B', // Mongolian free variation selector one
	'\u17B4', // Khmer vowel inherent aq
	'\u2065', // reserved default-ignorable
	'\u{1D173}', // musical symbol begin beam
	'\u{1BCA0}', // shorthand format letter overlap
	'\u{E0100}', // variation selector 17
	'\uFFF0', // reserved default-ignorable
];

test('a url with a default-ignorable code point is refused, raw or percent-encoded, naming url; /about stays one page', async () => {
	const t = await createTenant(h);
	expectOk(await t.api.post('/api/page', page('/about')), 201);
	const spellings = IGNORABLE.flatMap((character) => [
		`/about${character}`,
		`/about${encodeURIComponent(character)}`,
		`/ab${character}out`,
	]);
	const refused: string[] = [];
	for (const url of spellings) {
		const answer = await t.api.post('/api/page', page(url));
		if (answer.status === 400 && detailFields(answer.data).join() === 'url') refused.push(url);
	}
	expect(refused).toEqual(spellings);
	const named = expectError(
		await t.api.post('/api/page', page('/about%F3%A0%81%81')),
		400,
		'validation_failed',
	);
	expect(named.details[0].problem).toBe(
		'decodes to an invisible character (U+E0041, a default-ignorable code point): the url would look like another',
	);
	expect(expectOk(await t.api.get('/api/pages')).data.map((p: { url: string }) => p.url)).toEqual([
		'/about',
	]);
});

test('content and delete find the page by any of its spellings', async () => {
	const t = await createTenant(h);
	expectOk(await t.api.post('/api/page', page('/caf\u00e9')), 201);
	const updated = expectOk(
		await t.api.put('/api/content', {
			url: '/CAFE\u0301/',
			templates: [{ type: 'text', body: 'x' }],
		}),
	);
	expect(updated.page.url).toBe('/caf\u00e9');
	expectOk(await t.api.delete('/api/page', { data: { url: '/caf%C3%A9', permanently: 1 } }));
	expect(expectOk(await t.api.get('/api/pages')).data).toEqual([]);
});

/** The tenant's live pages as url -> name. */
async function pagesByUrl(t: Tenant): Promise<Record<string, string>> {
	const pages = await allPages(t);
	return Object.fromEntries(pages.map((p: { url: string; name: string }) => [p.url, p.name]));
}

test('a url as listed names that page and no other: listing, content, archive and erase', async () => {
	const t = await createTenant(h);
	// Pages whose urls decode to one another's: /xa, /x%41 and /x%2541 were once three readings of one.
	const raws = [
		'/xa',
		'/x%41',
		'/x%2541',
		'/100%25',
		'/100%2525',
		'/a%zz',
		'/caf%C3%A9',
		...fc.sample(
			rawPageUrl.filter((raw) => !/\p{Cs}/u.test(raw)),
			{ numRuns: 60, seed: 41 },
		),
	];
	for (const raw of raws) {
		const created = await t.api.post('/api/page', page(raw));
		expect({ raw, status: [201, 400, 409].includes(created.status) }).toEqual({
			raw,
			status: true,
		});
	}
	const before = await pagesByUrl(t);
	const listed = Object.keys(before);
	expect(listed.length).toBeGreaterThan(10);
	expect(listed).toContain('/xa');
	expect(listed).not.toContain('/x%41');

	for (const [index, url] of listed.entries()) {
		const found = expectOk(await t.api.get('/api/pages', { params: { url } }));
		expect({ url, found: found.data.map((p: { url: string }) => p.url) }).toEqual({
			url,
			found: [url],
		});
		const marker = [{ type: 'text', body: `rewritten ${index}` }];
		const updated = expectOk(await t.api.put('/api/content', { url, templates: marker }));
		expect({ url, updated: updated.page.url }).toEqual({ url, updated: url });
	}
	// Each page holds the content written under its own listed url, none another's.
	for (const [index, url] of listed.entries()) {
		const [only] = expectOk(await t.api.get('/api/pages', { params: { url } })).data;
		expect({ url, templates: only.templates }).toEqual({
			url,
			templates: [{ type: 'text', body: `rewritten ${index}` }],
		});
	}
	// Archive half, erase the others: each call takes exactly its page.
	const remaining = { ...before };
	for (const [index, url] of listed.entries()) {
		expectOk(
			await t.api.delete('/api/page', { data: { url, permanently: index % 2 ? 1 : undefined } }),
		);
		delete remaining[url];
		expect({ url, left: await pagesByUrl(t) }).toEqual({ url, left: remaining });
	}
	// The archived ones are erased by their listed url too, and nothing else is left.
	for (const [index, url] of listed.entries()) {
		if (index % 2) continue;
		expectOk(await t.api.delete('/api/page', { data: { url, permanently: 1 } }));
	}
	for (const url of listed) {
		const recreated = await t.api.post('/api/page', page(url));
		expect({ url, status: recreated.status }).toEqual({ url, status: 201 });
	}
});

test('what the document refuses is refused on every route however it is encoded', async () => {
	const t = await createTenant(h);
	expectOk(await t.api.post('/api/page', page('/evil.com')), 201);
	for (const url of [
		'/%5Cevil.com',
		'/%2F/evil.com',
		'/x%2541',
		'/%252e%252e/evil.com',
		'/a/%2e%2e/evil.com',
		'/a%5C..%5Cevil.com',
		'/evil.com%E2%80%AE',
		'/evil.com\u200e',
		'/evil.com\u200f',
		'/evil.com%D8%9C',
		'/evil.com\u2066',
		'/evil.com%C2%85',
		'/evil.com\u009b',
		'/evil.com%C3',
		'/%EF%BD%85vil.com',
	]) {
		const routes = [
			await t.api.post('/api/page', page(url)),
			await t.api.get('/api/pages', { params: { url } }),
			await t.api.put('/api/content', { url, templates: [] }),
			await t.api.delete('/api/page', { data: { url } }),
			await t.api.delete('/api/page', { data: { url, permanently: 1 } }),
		];
		for (const answer of routes) {
			const refused = expectError(answer, 400, 'validation_failed');
			expect({ url, fields: detailFields(refused) }).toEqual({ url, fields: ['url'] });
		}
	}
	expect(Object.keys(await pagesByUrl(t))).toEqual(['/evil.com']);
});
