/**
 * One page, one URL: every way a person writes /about or /café reaches the one page, or is refused
 * naming the url, never a second look-alike page.
 */
import { type Harness, createTenant, expectError, expectOk, useServer } from '../helpers';

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
