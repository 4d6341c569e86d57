/**
 * Claims on contact-form submissions (extension): the first claim of a key wins, every later one is
 * told it came second, even when many arrive at once; claims are per tenant and consumer, can be given
 * up, and outlive a restart.
 */
import {
	type Harness,
	client,
	createTenant,
	expectError,
	expectOk,
	restart,
	useServer,
} from '../helpers';

let h: Harness;
useServer((started) => {
	h = started;
});

const claim = { consumer: 'workflow-1/node-1', key: '"2f6c0a52-0d0e-4d3f-a1a3-5b4b3a2f9e10"' };

test("the first claim answers 201 claimed, a second 200 not claimed with the first claim's time", async () => {
	const t = await createTenant(h);
	const first = expectOk(await t.api.post('/api/contact-form/claims', claim), 201);
	expect(first.claimed).toBe(true);
	const second = expectOk(await t.api.post('/api/contact-form/claims', claim), 200);
	expect(second).toEqual({ claimed: false, claimed_at: first.claimed_at });
});

test('50 claims of one key at once: exactly one wins', async () => {
	const t = await createTenant(h);
	const answers = await Promise.all(
		Array.from({ length: 50 }, () => t.api.post('/api/contact-form/claims', claim)),
	);
	expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(49).fill(200), 201]);
	expect(answers.filter((answer) => answer.data.claimed === true)).toHaveLength(1);
});

test('keys are compared as given: "1" and 1 (as JSON text) are two claims; consumers and tenants do not share claims', async () => {
	const t = await createTenant(h);
	const other = await createTenant(h);
	expect((await t.api.post('/api/contact-form/claims', { consumer: 'c', key: '1' })).status).toBe(
		201,
	);
	expect((await t.api.post('/api/contact-form/claims', { consumer: 'c', key: '"1"' })).status).toBe(
		201,
	);
	expect(
		(await t.api.post('/api/contact-form/claims', { consumer: 'other', key: '1' })).status,
	).toBe(201);
	expect(
		(await other.api.post('/api/contact-form/claims', { consumer: 'c', key: '1' })).status,
	).toBe(201);
	expect((await t.api.post('/api/contact-form/claims', { consumer: 'c', key: '1' })).status).toBe(
		200,
	);
});

test('a released claim can be claimed again; releasing nothing says so', async () => {
	const t = await createTenant(h);
	expect((await t.api.post('/api/contact-form/claims', claim)).status).toBe(201);
	expect(expectOk(await t.api.delete('/api/contact-form/claims', { data: claim }))).toEqual({
		released: true,
	});
	expect(expectOk(await t.api.delete('/api/contact-form/claims', { data: claim }))).toEqual({
		released: false,
	});
	expect((await t.api.post('/api/contact-form/claims', claim)).status).toBe(201);
});

test('bad claims are refused with 400 naming the field', async () => {
	const t = await createTenant(h);
	const long = expectError(
		await t.api.post('/api/contact-form/claims', { consumer: 'c', key: 'k'.repeat(301) }),
		400,
		'validation_failed',
	);
	expect(JSON.stringify(long.details)).toContain('key');
	const missing = expectError(
		await t.api.post('/api/contact-form/claims', { key: 'k' }),
		400,
		'validation_failed',
	);
	expect(JSON.stringify(missing.details)).toContain('consumer');
	expectError(
		await t.api.post('/api/contact-form/claims', { consumer: 'c', key: 5 }),
		400,
		'validation_failed',
	);
});

test('claims outlive a restart', async () => {
	const t = await createTenant(h);
	expect((await t.api.post('/api/contact-form/claims', claim)).status).toBe(201);
	h = await restart(h);
	expect((await client(h.url, t.token).post('/api/contact-form/claims', claim)).status).toBe(200);
});

describe('claims with the delivery secret (POST /forms/{tenant_id}/claims)', () => {
	const SECRET = 'a-webhook-secret-of-32-characters!';
	const withSecret = async () => {
		const t = await createTenant(h);
		expectOk(
			await t.api.post('/api/settings', {
				contact_form_webhook_url: 'http://127.0.0.1:9/receiver',
				contact_form_webhook_headers: { 'X-Site-Webhook-Secret': SECRET, 'X-Env': 'prod' },
			}),
		);
		return t;
	};
	const claimAs = (tenantId: string, secret: string | undefined, body: object = claim) =>
		client(h.url).post(`/forms/${tenantId}/claims`, body, {
			headers: secret === undefined ? {} : { 'X-Site-Webhook-Secret': secret },
		});

	test('the secret the deliveries carry claims, once; the same claims as with the tenant token', async () => {
		const t = await withSecret();
		const first = expectOk(await claimAs(t.id, SECRET), 201);
		expect(first.claimed).toBe(true);
		expect(expectOk(await claimAs(t.id, SECRET), 200)).toEqual({
			claimed: false,
			claimed_at: first.claimed_at,
		});
		// One claim table: the token route sees the same claim.
		expect((await t.api.post('/api/contact-form/claims', claim)).status).toBe(200);
	});

	test('no secret, a wrong one, another header of the setting or another tenant: 401, nothing claimed', async () => {
		const t = await withSecret();
		const other = await withSecret();
		expectError(await claimAs(t.id, undefined), 400, 'validation_failed');
		expectError(await claimAs(t.id, `${SECRET}x`), 401, 'unauthorized');
		expectError(await claimAs(t.id, 'prod'), 401, 'unauthorized');
		const bare = await createTenant(h);
		expectError(await claimAs(bare.id, SECRET), 401, 'unauthorized');
		expectError(await claimAs('no-such-tenant', SECRET), 404, 'not_found');
		// Nothing was claimed: the first valid claim still wins, on each tenant.
		expect((await claimAs(t.id, SECRET)).status).toBe(201);
		expect((await claimAs(other.id, SECRET)).status).toBe(201);
	});
});
