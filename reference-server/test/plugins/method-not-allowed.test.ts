/** A known path asked with a method it does not take answers 405 with Allow; an unknown path 404. */
import { type Harness, createTenant, expectError, useServer } from '../helpers';

let h: Harness;
useServer((started) => {
	h = started;
});

test('405 with Allow for a known path and another method, before any token check', async () => {
	const health = await h.anon.post('/health', {});
	expectError(health, 405, 'method_not_allowed');
	expect(health.headers.allow).toMatch(/GET/);

	const t = await createTenant(h);
	const pages = await t.api.patch('/api/pages', {});
	expectError(pages, 405, 'method_not_allowed');
	expect(pages.headers.allow).toContain('GET');

	// A path with a parameter: only its own methods.
	const form = await h.anon.get(`/forms/${t.id}/claims`);
	expectError(form, 405, 'method_not_allowed');
	expect(form.headers.allow).toBe('POST');
});

test('an unknown path is still 404, whatever the method', async () => {
	expectError(await h.anon.get('/api/nothing-here'), 404, 'not_found');
	expectError(await h.anon.post('/forms/x/unknown', {}), 404, 'not_found');
});

test('a valid JSON body with a __proto__ key is refused saying so, small or large', async () => {
	const t = await createTenant(h);
	const small = await t.api.post(
		'/api/notifications',
		'{"id":"n","message":"m","status":"info","__proto__":{"x":1}}',
		{
			headers: { 'content-type': 'application/json' },
		},
	);
	expect(expectError(small, 400, 'invalid_json').message).toMatch(/"__proto__" key/);
	const padding = 'x'.repeat(300_000);
	const large = await t.api.post(
		'/api/notifications',
		`{"id":"n","message":"${padding}","status":"info","__proto__":{"x":1}}`,
		{ headers: { 'content-type': 'application/json' } },
	);
	expect(expectError(large, 400, 'invalid_json').message).toMatch(/"__proto__" key/);
	// Text that is not JSON is still "not valid JSON".
	const broken = await t.api.post('/api/notifications', '{"id":', {
		headers: { 'content-type': 'application/json' },
		// As sent: axios would quote text that does not parse as JSON.
		transformRequest: [(data: string) => data],
	});
	expect(expectError(broken, 400, 'invalid_json').message).toMatch(/not valid JSON/);
});
