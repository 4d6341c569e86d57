/**
 * What one tenant can make the server keep is bounded. Variables by count and
 * total size (GET /api/variables is answered whole), uploads by a per-tenant quota, contact-form
 * submissions and deliveries by a retention period whose purge runs on its own, and a form without
 * a webhook stores nothing.
 */
import FormData from 'form-data';

import {
	type Harness,
	type Tenant,
	Receiver,
	client,
	closedPort,
	createTenant,
	deliveries,
	expectError,
	listFiles,
	removeDataDirs,
	restart,
	setWebhook,
	start,
	stopAll,
	submitForm,
	waitFor,
} from '../helpers';

/** One receiver for the deliveries of every server of this file. */
let receiver: Receiver;
beforeAll(async () => {
	receiver = await new Receiver().start();
});
afterAll(async () => {
	await stopAll();
	await receiver.stop();
	removeDataDirs();
});

function countRows(h: Harness, table: 'submissions' | 'deliveries', t: Tenant): number {
	const { store } = h.server.app.site;
	const pk = store.tenants.findById(t.id)!.pk;
	return (
		store.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE tenant_pk = ?`).get(pk) as {
			n: number;
		}
	).n;
}

describe('variables: count and total size per tenant', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await start({ enableVariables: true, maxVariables: 3, maxVariablesKb: 8 });
	});

	it('one variable past --max-variables is 413 quota_exceeded naming the option; replacing one still works', async () => {
		const t = await createTenant(h);
		for (const key of ['a', 'b', 'c'])
			expect((await t.api.put('/api/variables', { key, value: 'v' })).status).toBe(200);
		const res = await t.api.put('/api/variables', { key: 'd', value: 'v' });
		expect(expectError(res, 413, 'quota_exceeded').message).toMatch(/--max-variables\b/);
		expect((await t.api.put('/api/variables', { key: 'c', value: 'replaced' })).status).toBe(200);
		const list = (await t.api.get('/api/variables')).data.data;
		expect(list).toEqual([
			{ key: 'a', value: 'v' },
			{ key: 'b', value: 'v' },
			{ key: 'c', value: 'replaced' },
		]);
		// Another tenant has its own budget.
		const u = await createTenant(h);
		expect((await u.api.put('/api/variables', { key: 'd', value: 'v' })).status).toBe(200);
	});

	it('values past --max-variables-kb together are 413 quota_exceeded; the list answer stays within it', async () => {
		const t = await createTenant(h);
		expect(
			(await t.api.put('/api/variables', { key: 'big', value: 'x'.repeat(6000) })).status,
		).toBe(200);
		const res = await t.api.put('/api/variables', { key: 'more', value: 'é'.repeat(1200) });
		expect(expectError(res, 413, 'quota_exceeded').message).toMatch(/--max-variables-kb/);
		expect(
			(await t.api.put('/api/variables', { key: 'more', value: 'y'.repeat(2000) })).status,
		).toBe(200);
		const answer = await t.api.get('/api/variables', { responseType: 'text' });
		expect(answer.status).toBe(200);
		expect(Buffer.byteLength(answer.data)).toBeLessThan(8 * 1024 + 200);
	});
});

describe('uploads: a quota per tenant', () => {
	let h: Harness;
	beforeAll(async () => {
		// 8 KB for all of a tenant's files, 25 MB for one upload.
		h = await start({ uploadQuotaMb: 8 / 1024 });
	});

	const upload = (t: Tenant, bytes: number) => {
		const f = new FormData();
		f.append('file', Buffer.alloc(bytes, 'q'), { filename: 'q.bin', contentType: 'text/plain' });
		return t.api.post('/api/asset', f, { headers: f.getHeaders() });
	};

	it('an upload past --upload-quota-mb is 413 quota_exceeded naming the option, and nothing of it is kept', async () => {
		const t = await createTenant(h);
		expect((await upload(t, 5000)).status).toBe(201);
		const filesBefore = listFiles(h.dataDir).length;
		const res = await upload(t, 5000);
		expect(expectError(res, 413, 'quota_exceeded').message).toMatch(/--upload-quota-mb/);
		expect(listFiles(h.dataDir).length).toBe(filesBefore);
		// What is left still takes a smaller file; another tenant has its own quota.
		expect((await upload(t, 3000)).status).toBe(201);
		expectError(await upload(t, 500), 413, 'quota_exceeded');
		expect((await upload(await createTenant(h), 8000)).status).toBe(201);
	});
});

describe('contact-form submissions and deliveries: retention and no webhook', () => {
	it('without a webhook URL a submission is answered 202 and nothing is stored', async () => {
		const h = await start();
		const t = await createTenant(h);
		expect(typeof (await submitForm(h, t.id, { message: 'nobody listens' }))).toBe('string');
		expect(countRows(h, 'submissions', t)).toBe(0);
		expect(countRows(h, 'deliveries', t)).toBe(0);
	});

	it('the purge runs on its own: submissions past --retention-days go with their deliveries, pending ones stay', async () => {
		let h = await start({ retentionDays: 30, deliveryRetryBaseMs: 3_600_000 });
		const t = await createTenant(h);
		await setWebhook(t, `${receiver.url}/hook`);
		const old = await submitForm(h, t.id, { n: 'old' });
		const recent = await submitForm(h, t.id, { n: 'recent' });
		await waitFor(
			() => receiver.for(old).length + receiver.for(recent).length === 2,
			5000,
			'delivered',
		);
		// A delivery that stays pending (its retry is an hour away).
		await setWebhook(t, `http://127.0.0.1:${await closedPort()}/hook`);
		const pending = await submitForm(h, t.id, { n: 'pending' });
		await waitFor(
			async () => (await deliveries(t)).find((d) => d.submission_id === pending)?.attempts === 1,
			5000,
			'first attempt of the pending one',
		);
		const age = h.server.app.site.store.db.prepare(
			`UPDATE submissions SET submitted_at = '2001-01-01T00:00:00.000Z' WHERE id = ?`,
		);
		age.run(old);
		age.run(pending);

		// No call asks for it: the server purges when it is ready.
		h = await restart(h);
		const api = client(h.url, t.token);
		const left = (await api.get('/api/contact-form/deliveries')).data.data;
		expect(left.map((d: { submission_id: string }) => d.submission_id).sort()).toEqual(
			[recent, pending].sort(),
		);
		expect(countRows(h, 'submissions', t)).toBe(2);
	});

	it('--retention-days 0 keeps everything', async () => {
		let h = await start({ retentionDays: 0 });
		const t = await createTenant(h);
		await setWebhook(t, `${receiver.url}/hook`);
		const sid = await submitForm(h, t.id, {});
		await waitFor(() => receiver.for(sid).length === 1, 5000, 'delivered');
		h.server.app.site.store.db
			.prepare(`UPDATE submissions SET submitted_at = '2001-01-01T00:00:00.000Z'`)
			.run();
		h = await restart(h);
		expect(countRows(h, 'submissions', t)).toBe(1);
	});
});
