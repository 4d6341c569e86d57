/**
 * What one tenant token can make the server do with test webhooks is bounded: a few registrations
 * per tenant, a few copies in flight server-wide, registrations that end with the token that set
 * them, and all of them listed in the settings where the site owner looks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import {
	type Harness,
	Receiver,
	client,
	createTenant,
	expectError,
	expectOk,
	sleep,
	submitForm,
	useServer,
	waitFor,
} from '../helpers';

let h: Harness;
useServer(
	(started) => {
		h = started;
	},
	{ maxTestWebhooks: 3, maxTestCopiesInFlight: 2 },
);
const PATH = '/api/contact-form/test-webhooks';
const stoppers: Array<() => Promise<void>> = [];
afterAll(async () => await Promise.all(stoppers.map((stop) => stop())));

async function receiver(): Promise<Receiver> {
	const r = await new Receiver().start();
	stoppers.push(() => r.stop());
	return r;
}

test('a tenant has at most --max-test-webhooks at once; renewing one it has still works', async () => {
	const t = await createTenant(h);
	const r = await receiver();
	for (const n of [1, 2, 3]) expectOk(await t.api.post(PATH, { url: `${r.url}/hook-${n}` }));
	const refused = expectError(
		await t.api.post(PATH, { url: `${r.url}/hook-4` }),
		413,
		'quota_exceeded',
	);
	expect(refused.message).toContain('--max-test-webhooks');
	expectOk(await t.api.post(PATH, { url: `${r.url}/hook-2`, ttl_seconds: 120 }));
	// Another tenant has its own three.
	const other = await createTenant(h);
	expectOk(await other.api.post(PATH, { url: `${r.url}/other` }));
	// One removed makes room again.
	expectOk(await t.api.delete(PATH, { data: { url: `${r.url}/hook-1` } }));
	expectOk(await t.api.post(PATH, { url: `${r.url}/hook-4` }));
});

test('revoking the token that set them ends its test webhooks: not listed, no copy', async () => {
	const t = await createTenant(h);
	const r = await receiver();
	expectOk(await t.api.post(PATH, { url: `${r.url}/listening` }));
	const settings = expectOk(await t.api.get('/api/settings'));
	expect(settings.test_webhooks.map((w: { url: string }) => w.url)).toEqual([`${r.url}/listening`]);

	const rotated = expectOk(
		await h.admin.post('/api/tenant/token', { id: t.id, revoke_previous: true }),
	);
	const current = client(h.url, rotated.token);
	expect(expectOk(await current.get(PATH)).data).toEqual([]);
	expect(expectOk(await current.get('/api/settings')).test_webhooks).toEqual([]);
	await submitForm(h, t.id, { n: 1 });
	await sleep(300);
	expect(r.requests).toHaveLength(0);
});

test('at most --max-test-copies-in-flight copies are sent at once; the rest are not sent', async () => {
	const held: http.ServerResponse[] = [];
	let received = 0;
	const slow = http.createServer((request, response) => {
		request.resume();
		received++;
		held.push(response);
	});
	await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
	stoppers.push(async () => {
		for (const response of held) response.end();
		await new Promise((resolve) => slow.close(resolve));
	});
	const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
	const t = await createTenant(h);
	for (const n of [1, 2, 3]) expectOk(await t.api.post(PATH, { url: `${url}/slow-${n}` }));

	// Two submissions would make six copies: two go, four are not sent.
	await submitForm(h, t.id, { n: 1 });
	await submitForm(h, t.id, { n: 2 });
	await waitFor(async () => received === 2 || undefined, 5000, 'two copies in flight');
	await sleep(300);
	expect(received).toBe(2);
	expect(h.server.app.site.testCopies.sending).toBe(2);
	for (const response of held.splice(0)) {
		response.writeHead(200);
		response.end();
	}
	await waitFor(async () => h.server.app.site.testCopies.sending === 0 || undefined, 5000, 'done');
});
