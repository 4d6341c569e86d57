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
