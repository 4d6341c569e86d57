/**
 * Test webhooks (extension): a URL that gets a copy of each new contact-form submission for a while,
 * beside the configured webhook, which keeps getting every submission; listed without headers,
 * removable, gone when they expire, validated as the settings' webhook is.
 */
import {
	type Harness,
	type Tenant,
	Receiver,
	createTenant,
	detailFields,
	deliveryOf,
	expectError,
	expectOk,
	setWebhook,
	sleep,
	submitForm,
	useServer,
	waitFor,
} from '../helpers';

let h: Harness;
useServer((started) => {
	h = started;
});
const receivers: Receiver[] = [];
afterAll(async () => await Promise.all(receivers.map((r) => r.stop())));

async function receiver(): Promise<Receiver> {
	const r = await new Receiver().start();
	receivers.push(r);
	return r;
}

const PATH = '/api/contact-form/test-webhooks';

async function live(t: Tenant) {
	const res = expectOk(await t.api.get(PATH));
	return res.data as Array<{ url: string; expires_at: string }>;
}

test('while set, each new submission goes to the webhook (durable delivery) and a copy to the test webhook, with its own headers', async () => {
	const [production, test] = [await receiver(), await receiver()];
	const t = await createTenant(h);
	await setWebhook(t, `${production.url}/live`, { 'X-Secret': 'live-secret' });
	const before = Date.now();
	const set = expectOk(
		await t.api.post(PATH, {
			url: `${test.url}/test`,
			headers: { 'X-Secret': 'test-secret' },
			ttl_seconds: 60,
		}),
	);
	const after = Date.now();
	expect(set.url).toBe(`${test.url}/test`);
	// 60 s from when the server took the request, which lies between before and after (same clock).
	const expires = Date.parse(set.expires_at);
	expect(expires).toBeGreaterThanOrEqual(before + 60_000);
	expect(expires).toBeLessThanOrEqual(after + 60_000);
	expect(await live(t)).toEqual([set]);

	const ids = await Promise.all([1, 2, 3].map((n) => submitForm(h, t.id, { n })));
	await waitFor(async () => test.requests.length === 3 || undefined, 5000, 'three copies');
	await waitFor(
		async () =>
			(await Promise.all(ids.map((id) => deliveryOf(t, id)))).every(
				(d) => d?.state === 'delivered',
			) || undefined,
		5000,
		'three deliveries',
	);
	for (const [r, secret] of [
		[production, 'live-secret'],
		[test, 'test-secret'],
	] as const) {
		expect(r.requests.map((q) => q.json.submission_id).sort()).toEqual([...ids].sort());
		for (const q of r.requests) {
			expect(q.headers['x-secret']).toBe(secret);
			expect(q.headers['content-type']).toBe('application/json');
			expect(q.headers['x-site-delivery-id']).toBeDefined();
		}
	}
	// The copy is the delivery's body, byte for byte the same fields.
	const byId = (r: Receiver, id: string) =>
		r.requests.find((q) => q.json.submission_id === id)!.json;
	for (const id of ids) expect(byId(test, id)).toEqual(byId(production, id));
	// A copy is no delivery: only the live ones are listed.
	for (const id of ids) expect((await deliveryOf(t, id)).attempts).toBe(1);
});

test('a copy is sent once: a test webhook answering 404 (n8n no longer listening) is not retried, and the live delivery is unaffected', async () => {
	const [production, test] = [await receiver(), await receiver()];
	test.defaultStatus = 404;
	const t = await createTenant(h);
	await setWebhook(t, `${production.url}/live`);
	expectOk(await t.api.post(PATH, { url: `${test.url}/gone`, headers: null }));
	const id = await submitForm(h, t.id, { n: 1 });
	await waitFor(
		async () => (await deliveryOf(t, id))?.state === 'delivered' || undefined,
		5000,
		'delivered',
	);
	// The copy goes on its own: wait for it, then give a retry (which must not come) time to show.
	await waitFor(async () => test.requests.length >= 1 || undefined, 5000, 'the copy');
	await sleep(300);
	expect(test.requests).toHaveLength(1);
	expect(production.requests).toHaveLength(1);
});

test('without a webhook set, the test webhook still gets its copy (no delivery is made)', async () => {
	const test = await receiver();
	const t = await createTenant(h);
	expectOk(await t.api.post(PATH, { url: `${test.url}/only`, headers: { 'X-Secret': 's' } }));
	const id = await submitForm(h, t.id, { only: 'test' });
	await waitFor(async () => test.requests.length === 1 || undefined, 5000, 'a copy');
	expect(test.requests[0].json).toMatchObject({ submission_id: id, fields: { only: 'test' } });
	expect(await deliveryOf(t, id)).toBeUndefined();
});

test('removing it stops the copies at once; removing it again says there was none', async () => {
	const test = await receiver();
	const t = await createTenant(h);
	const url = `${test.url}/remove`;
	expectOk(await t.api.post(PATH, { url, headers: {} }));
	expect(expectOk(await t.api.delete(PATH, { data: { url } }))).toEqual({ removed: true });
	expect(expectOk(await t.api.delete(PATH, { data: { url } }))).toEqual({ removed: false });
	expect(await live(t)).toEqual([]);
	await submitForm(h, t.id, { n: 1 });
	await sleep(300);
	expect(test.requests).toHaveLength(0);
});

test('an expired test webhook is neither listed nor copied to; setting it again renews it', async () => {
	const test = await receiver();
	const t = await createTenant(h);
	const url = `${test.url}/expire`;
	expectOk(await t.api.post(PATH, { url, headers: {}, ttl_seconds: 1 }));
	await sleep(1100);
	expect(await live(t)).toEqual([]);
	await submitForm(h, t.id, { n: 1 });
	await sleep(300);
	expect(test.requests).toHaveLength(0);
	expectOk(await t.api.post(PATH, { url, headers: {}, ttl_seconds: 60 }));
	expect((await live(t)).map((w) => w.url)).toEqual([url]);
});

test("tenants do not see or feed each other's test webhooks; the listing never shows headers", async () => {
	const test = await receiver();
	const [a, b] = [await createTenant(h), await createTenant(h)];
	expectOk(
		await a.api.post(PATH, { url: `${test.url}/a`, headers: { 'X-Secret': 'never-listed' } }),
	);
	expect(await live(b)).toEqual([]);
	expect(JSON.stringify(await live(a))).not.toContain('never-listed');
	await submitForm(h, b.id, { n: 1 });
	await sleep(300);
	expect(test.requests).toHaveLength(0);
});

test('bad input is refused naming the field: not an http(s) URL, a ttl out of range, headers given twice, unknown fields, a refused target', async () => {
	const t = await createTenant(h);
	const refused = async (body: Record<string, unknown>) =>
		detailFields(expectError(await t.api.post(PATH, body), 400, 'validation_failed'));
	const url = 'http://127.0.0.1:9/x';
	expect(await refused({ url: 'ftp://x/y', headers: {} })).toEqual(['url']);
	expect(await refused({ url, headers: {}, ttl_seconds: 3601 })).toEqual(['ttl_seconds']);
	expect(await refused({ url, headers: { 'X-A': '1', 'x-a': '2' } })).toContain('headers.x-a');
	expect(await refused({ url, headers: {}, extra: 1 })).toEqual(['extra']);
	// The target policy of the settings' webhook: a cloud metadata address is refused when set.
	expect(await refused({ url: 'http://169.254.169.254/latest', headers: {} })).toEqual(['url']);
	expect(await live(t)).toEqual([]);
});
