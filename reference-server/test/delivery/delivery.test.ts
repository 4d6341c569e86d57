/**
 * Contact form and its durable delivery: payload and headers, retries on 5xx/408/429 and network
 * errors, stop on other 4xx (but for a receiver still setting up), maximum attempts, and the
 * deliveries listing (extension).
 */
import type { FastifyBaseLogger } from 'fastify';

import type { AttemptOutcome, ContactFormRepository, DueDelivery } from '../../src/db/contact-form';
import { parseCidrList, TargetPolicy } from '../../src/delivery/target-policy';
import { DeliveryWorker } from '../../src/delivery/worker';
import {
	type Harness,
	type Tenant,
	Receiver,
	closedPort,
	createTenant,
	deliveries,
	deliveryOf,
	expectError,
	expectOk,
	issueToken,
	client,
	removeDataDirs,
	setWebhook,
	sleep,
	start,
	stopAll,
	submitForm,
	uniqueId,
	waitFor,
} from '../helpers';

const BASE_MS = 20;
let h: Harness;
let capped: Harness;
/** With the default set-up grace (30 s): a not-ready answer right after the webhook was set is retried. */
let settingUp: Harness;
/**
 * A set-up grace short enough to wait out, and long enough that a submission and its first attempt
 * right after a settings change (tens of milliseconds) land inside it on a loaded machine too.
 */
let shortGrace: Harness;
const SHORT_GRACE_MS = 3000;
const receivers: Receiver[] = [];

async function newReceiver(): Promise<Receiver> {
	const r = await new Receiver().start();
	receivers.push(r);
	return r;
}

beforeAll(async () => {
	// The stop rules are tested without the set-up grace; it has tests of its own below.
	[h, capped, settingUp, shortGrace] = await Promise.all([
		start({ deliveryRetryBaseMs: BASE_MS, deliveryMaxAttempts: 50, deliverySetupGraceMs: 0 }),
		start({ deliveryRetryBaseMs: BASE_MS, deliveryMaxAttempts: 3, deliverySetupGraceMs: 0 }),
		start({ deliveryRetryBaseMs: 200 }),
		start({ deliveryRetryBaseMs: BASE_MS, deliverySetupGraceMs: SHORT_GRACE_MS }),
	]);
});

afterAll(async () => {
	await stopAll();
	await Promise.all(receivers.map((r) => r.stop()));
	removeDataDirs();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

async function waitForState(
	t: Tenant,
	submissionId: string,
	state: string,
	timeoutMs = 5000,
): Promise<any> {
	return waitFor(
		async () => {
			const d = await deliveryOf(t, submissionId);
			return d && d.state === state ? d : undefined;
		},
		timeoutMs,
		`delivery ${submissionId} ${state}`,
	);
}

describe('POST /forms/:tenantId/contact', () => {
	it('answers 202 with a submission_id and delivers the contract payload with the configured headers', async () => {
		const receiver = await newReceiver();
		const t = await createTenant(h);
		await setWebhook(t, `${receiver.url}/hooks/contact?key=path-secret`, {
			'X-Webhook-Secret': 'shared-secret',
			'X-Other': 'two',
		});
		const fields = {
			name: 'Ada',
			email: 'ada@example.com',
			message: 'Hello',
			newsletter: true,
			nested: { n: 1 },
		};
		const before = Date.now();
		const res = await h.anon.post(`/forms/${t.id}/contact`, fields);
		expect(res.status).toBe(202);
		expect(res.data).toEqual({ submission_id: expect.any(String) });
		const sid = res.data.submission_id;

		const delivered = await waitForState(t, sid, 'delivered');
		expect(delivered).toEqual(
			expect.objectContaining({
				id: expect.any(String),
				submission_id: sid,
				state: 'delivered',
				attempts: 1,
				last_status: 200,
				last_error: null,
				delivered_at: expect.stringMatching(ISO),
				created_at: expect.stringMatching(ISO),
			}),
		);
		expect(delivered).toHaveProperty('next_attempt_at');

		const got = receiver.for(sid);
		expect(got).toHaveLength(1);
		const req = got[0];
		expect(req.method).toBe('POST');
		expect(req.url).toBe('/hooks/contact?key=path-secret');
		expect(String(req.headers['content-type'])).toMatch(/^application\/json/);
		expect(req.headers['x-webhook-secret']).toBe('shared-secret');
		expect(req.headers['x-other']).toBe('two');
		expect(req.headers.authorization).toBeUndefined();
		expect(req.json).toEqual({
			submission_id: sid,
			tenant_id: t.id,
			form: 'contact',
			submitted_at: expect.stringMatching(ISO),
			fields,
		});
		const submittedAt = Date.parse(req.json.submitted_at);
		expect(submittedAt).toBeGreaterThanOrEqual(before - 1000);
		expect(submittedAt).toBeLessThanOrEqual(Date.now() + 1000);
	});

	it('needs no token, and ignores one that is sent', async () => {
		const receiver = await newReceiver();
		const t = await createTenant(h);
		await setWebhook(t, receiver.url);
		const withGarbage = await client(h.url, 'not-a-token').post(`/forms/${t.id}/contact`, { a: 1 });
		expect(withGarbage.status).toBe(202);
		await waitFor(
			() => receiver.for(withGarbage.data.submission_id).length === 1,
			5000,
			'delivered',
		);
	});

	it('answers 404 for an unknown tenant', async () => {
		expectError(
			await h.anon.post(`/forms/${uniqueId('ghost')}/contact`, { a: 1 }),
			404,
			'not_found',
		);
	});

	it('without a webhook url the submission is accepted and nothing is delivered', async () => {
		const t = await createTenant(h);
		const sid = await submitForm(h, t.id, { a: 1 });
		const list = await deliveries(t);
		const d = list.find((x) => x.submission_id === sid);
		// nowhere to deliver: either no delivery at all, or one that is not delivered
		expect(d === undefined || d.state !== 'delivered').toBe(true);
	});

	it('every submission gets its own id and delivery', async () => {
		const receiver = await newReceiver();
		const t = await createTenant(h);
		await setWebhook(t, receiver.url);
		const ids = await Promise.all([1, 2, 3].map((n) => submitForm(h, t.id, { n })));
		expect(new Set(ids).size).toBe(3);
		await waitFor(() => ids.every((id) => receiver.for(id).length === 1), 5000, 'three delivered');
		for (const id of ids) expect((await deliveryOf(t, id)).state).toBe('delivered');
		expect(ids.map((id) => receiver.for(id)[0].json.fields.n).sort()).toEqual([1, 2, 3]);
	});

	it('a renamed tenant receives at the new id; the old id answers 404', async () => {
		const receiver = await newReceiver();
		const t = await createTenant(h);
		await setWebhook(t, receiver.url);
		const newId = uniqueId('renamed');
		expectOk(await h.admin.put('/api/tenant', { old_id: t.id, id: newId }));
		expectError(await h.anon.post(`/forms/${t.id}/contact`, { a: 1 }), 404, 'not_found');
		const sid = await submitForm(h, newId, { a: 1 });
		await waitFor(() => receiver.for(sid).length === 1, 5000, 'delivered');
		expect(receiver.for(sid)[0].json.tenant_id).toBe(newId);
		// a token issued for the new id sees the delivery (the old one stopped at the rename)
		const fresh = { ...t, id: newId, api: client(h.url, await issueToken(h, newId)) };
		expect((await deliveryOf(fresh, sid)).state).toBe('delivered');
	});
});

describe('retries', () => {
	it('503 twice then 200: delivered after 3 attempts, the same payload each time', async () => {
		const receiver = await newReceiver();
		receiver.plan(503, 503);
		const t = await createTenant(h);
		await setWebhook(t, receiver.url, { 'X-Secret': 'abc' });
		const sid = await submitForm(h, t.id, { retry: true });

		const d = await waitForState(t, sid, 'delivered');
		expect(d.attempts).toBe(3);
		expect(d.last_status).toBe(200);
		const got = receiver.for(sid);
		expect(got.map((r) => r.status)).toEqual([503, 503, 200]);
		expect(got[1].json).toEqual(got[0].json);
		expect(got[2].json).toEqual(got[0].json);
		expect(got.every((r) => r.headers['x-secret'] === 'abc')).toBe(true);
		// backoff: the attempts are spaced out, not fired back to back
		expect(got[2].at - got[0].at).toBeGreaterThanOrEqual(BASE_MS);
	});

	it('while retrying, the delivery is pending with the last status and a next attempt time', async () => {
		const receiver = await newReceiver();
		receiver.defaultStatus = 503;
		const t = await createTenant(h);
		await setWebhook(t, receiver.url);
		const sid = await submitForm(h, t.id, { pending: true });
		const d = await waitFor(
			async () => {
				const x = await deliveryOf(t, sid);
				return x && x.attempts >= 2 ? x : undefined;
			},
			5000,
			'two attempts',
		);
		expect(d.state).toBe('pending');
		expect(d.last_status).toBe(503);
		expect(d.next_attempt_at).toMatch(ISO);
		expect(d.delivered_at).toBeNull();
		receiver.defaultStatus = 200;
		await waitForState(t, sid, 'delivered', 10000);
	});

	it('500, 429 and 408 are retried too', async () => {
		const receiver = await newReceiver();
		receiver.plan(500, 429, 408);
		const t = await createTenant(h);
		await setWebhook(t, receiver.url);
		const sid = await submitForm(h, t.id, { codes: [500, 429, 408] });
		const d = await waitForState(t, sid, 'delivered', 10000);
		expect(d.attempts).toBe(4);
		expect(receiver.for(sid).map((r) => r.status)).toEqual([500, 429, 408, 200]);
	});

	it('a closed port is retried (state pending, attempts grow) until the receiver is reachable', async () => {
		const port = await closedPort();
		const t = await createTenant(h);
		await setWebhook(t, `http://127.0.0.1:${port}/hook`);
		const sid = await submitForm(h, t.id, { closed: true });

		const d = await waitFor(
			async () => {
				const x = await deliveryOf(t, sid);
				return x && x.attempts >= 2 ? x : undefined;
			},
			5000,
			'two failed attempts',
		);
		expect(d.state).toBe('pending');
		expect(d.last_status).toBeNull();
		expect(typeof d.last_error).toBe('string');
		expect(d.last_error.length).toBeGreaterThan(0);

		// the server reads the webhook url from the current settings at each attempt
		const receiver = await newReceiver();
		await setWebhook(t, `${receiver.url}/hook`);
		const done = await waitForState(t, sid, 'delivered', 10000);
		expect(done.attempts).toBeGreaterThanOrEqual(3);
		expect(done.last_status).toBe(200);
		expect(receiver.for(sid)).toHaveLength(1);
	});
});

describe('stops', () => {
	it('400: failed after 1 attempt, never retried', async () => {
		const receiver = await newReceiver();
		receiver.defaultStatus = 400;
		const t = await createTenant(h);
		await setWebhook(t, receiver.url);
		const sid = await submitForm(h, t.id, { bad: true });
		const d = await waitForState(t, sid, 'failed');
		expect(d.attempts).toBe(1);
		expect(d.last_status).toBe(400);
		expect(d.delivered_at).toBeNull();
		// a retry would come after BASE_MS with backoff; give it many times that
		await sleep(BASE_MS * 15);
		expect(receiver.for(sid)).toHaveLength(1);
		expect((await deliveryOf(t, sid)).attempts).toBe(1);
	});

	it.each([401, 403, 404, 422])('%i stops too', async (status) => {
		const receiver = await newReceiver();
		receiver.defaultStatus = status;
		const t = await createTenant(h);
		await setWebhook(t, receiver.url);
		const sid = await submitForm(h, t.id, { status });
		const d = await waitForState(t, sid, 'failed');
		expect(d.attempts).toBe(1);
		expect(d.last_status).toBe(status);
	});

	it('gives up after the maximum number of attempts (failed, attempts = max)', async () => {
		const receiver = await newReceiver();
		receiver.defaultStatus = 503;
		const t = await createTenant(capped);
		await setWebhook(t, receiver.url);
		const sid = await submitForm(capped, t.id, { forever: 503 });
		const d = await waitForState(t, sid, 'failed', 10000);
		expect(d.attempts).toBe(3);
		expect(d.last_status).toBe(503);
		expect(receiver.for(sid)).toHaveLength(3);
	});
});

describe('GET /api/contact-form/deliveries', () => {
	it('lists the deliveries of the tenant with the documented fields', async () => {
		const receiver = await newReceiver();
		const t = await createTenant(h);
		expect(await deliveries(t)).toEqual([]);
		await setWebhook(t, receiver.url);
		const sid = await submitForm(h, t.id, { x: 1 });
		await waitForState(t, sid, 'delivered');
		const res = await t.api.get('/api/contact-form/deliveries');
		expect(res.status).toBe(200);
		expect(res.data.data).toHaveLength(1);
		const d = res.data.data[0];
		for (const key of [
			'id',
			'submission_id',
			'state',
			'attempts',
			'last_status',
			'last_error',
			'next_attempt_at',
			'delivered_at',
			'created_at',
		]) {
			expect(d).toHaveProperty(key);
		}
	});

	it('a second token of the same tenant sees the same deliveries', async () => {
		const receiver = await newReceiver();
		const t = await createTenant(h);
		await setWebhook(t, receiver.url);
		const sid = await submitForm(h, t.id, { y: 2 });
		await waitForState(t, sid, 'delivered');
		const other = client(h.url, await issueToken(h, t.id));
		const list = expectOk(await other.get('/api/contact-form/deliveries')).data;
		expect(list.map((d: any) => d.submission_id)).toEqual([sid]);
	});
});

describe('an idle server delivers promptly', () => {
	const quietLogger = {
		info: () => undefined,
		warn: () => undefined,
		error: () => undefined,
		child: () => quietLogger,
	} as unknown as FastifyBaseLogger;
	const HOUR_MS = 60 * 60 * 1000;

	it('a new delivery wakes the worker: delivered with the next poll an hour away', async () => {
		const receiver = await newReceiver();
		const outbox: DueDelivery[] = [];
		const outcomes: AttemptOutcome[] = [];
		const repository = {
			due: () => outbox.splice(0),
			recordAttempt: (_id: string, outcome: AttemptOutcome) => void outcomes.push(outcome),
		} as unknown as ContactFormRepository;
		const targets = new TargetPolicy({
			allow: parseCidrList('loopback'),
			self: () => ({ port: 0, host: '127.0.0.1' }),
		});
		const worker = new DeliveryWorker({
			repository,
			targets,
			logger: quietLogger,
			retryBaseMs: BASE_MS,
			maxAttempts: 3,
			timeoutMs: 5000,
			pollIntervalMs: HOUR_MS,
		});
		try {
			// The first look finds nothing; the next poll is an hour away.
			worker.start();
			await sleep(50);
			outbox.push({
				id: 'd-1',
				attempts: 0,
				submission_id: 's-1',
				form: 'contact',
				fields: '{"a":1}',
				submitted_at: new Date().toISOString(),
				tenant_id: 't-1',
				webhook_url: receiver.url,
				webhook_headers: null,
				webhook_set_at: null,
			});
			worker.notify();
			// Far less than the poll interval: only the wake-up can have delivered it.
			await waitFor(() => outcomes.length === 1, 10_000, 'delivered after notify');
			expect(receiver.for('s-1')).toHaveLength(1);
			expect(outcomes[0]).toEqual(
				expect.objectContaining({ state: 'delivered', last_status: 200 }),
			);
		} finally {
			await worker.stop();
		}
	});

	it('a submission wakes the worker once its delivery is stored', async () => {
		// A server of its own: no other delivery wakes its worker meanwhile.
		const own = await start();
		const receiver = await newReceiver();
		const t = await createTenant(own);
		await setWebhook(t, receiver.url);
		const { worker, store } = own.server.app.site;
		const wake = worker.notify.bind(worker);
		// At each wake-up, the submissions the worker would find due then.
		const dueAtWake: string[][] = [];
		const notify = jest.spyOn(worker, 'notify').mockImplementation(() => {
			dueAtWake.push(
				store.contactForm
					.due(new Date(Date.now() + 1000).toISOString(), 10)
					.map((d) => d.submission_id),
			);
			wake();
		});
		try {
			const sid = await submitForm(own, t.id, { wake: true });
			await waitForState(t, sid, 'delivered');
			expect(notify).toHaveBeenCalled();
			expect(dueAtWake[0]).toEqual([sid]);
		} finally {
			notify.mockRestore();
		}
	});
});

describe('a receiver still setting up (issue 42: a trigger told its secret before it stored it)', () => {
	it('answers 404 for its first 1.5 s after the webhook was set: retried, delivered within seconds', async () => {
		// Backoff from 200 ms (each pause 0.5-1x of 200, 400, 800, 1600 ms…): the attempt that finds the
		// receiver ready comes 1.5-3 s after the submission, plus the attempts' own time. The deadline
		// is 20 s: room for a loaded machine, and short of the 30 s grace, after which a 404 would stop.
		const DELIVERED_WITHIN_MS = 20_000;
		const receiver = await newReceiver();
		receiver.defaultStatus = 404;
		const t = await createTenant(settingUp);
		await setWebhook(t, receiver.url);
		const ready = setTimeout(() => (receiver.defaultStatus = 200), 1500);
		try {
			const submitted = Date.now();
			const sid = await submitForm(settingUp, t.id, { name: 'Ada' });
			const d = await waitForState(t, sid, 'delivered', DELIVERED_WITHIN_MS);
			expect(d.attempts).toBeGreaterThan(1);
			expect(d.last_status).toBe(200);
			const answers = receiver.for(sid);
			expect(answers[0].status).toBe(404);
			expect(answers.at(-1)!.status).toBe(200);
			// Delivered once, by the first attempt after the receiver was ready: every earlier one was a 404.
			expect(answers.slice(0, -1).every((answer) => answer.status === 404)).toBe(true);
			expect(answers.at(-1)!.at - submitted).toBeLessThan(DELIVERED_WITHIN_MS);
		} finally {
			clearTimeout(ready);
		}
	});

	it('401 (the secret not stored yet) is retried too, then delivered', async () => {
		const receiver = await newReceiver();
		receiver.plan(401, 404, 401);
		const t = await createTenant(settingUp);
		await setWebhook(t, receiver.url);
		const sid = await submitForm(settingUp, t.id, { name: 'Grace' });
		const d = await waitForState(t, sid, 'delivered', 10000);
		expect(d.attempts).toBe(4);
		expect(receiver.for(sid).map((r) => r.status)).toEqual([401, 404, 401, 200]);
	});

	it.each([400, 403, 422])(
		'%i still stops at once: a refusal, not a receiver setting up',
		async (status) => {
			const receiver = await newReceiver();
			receiver.plan(status);
			const t = await createTenant(settingUp);
			await setWebhook(t, receiver.url);
			const sid = await submitForm(settingUp, t.id, { name: 'Edsger' });
			const d = await waitForState(t, sid, 'failed');
			expect(d.attempts).toBe(1);
			expect(d.last_status).toBe(status);
		},
	);

	it('after the grace a 404 stops as the contract says', async () => {
		const receiver = await newReceiver();
		receiver.defaultStatus = 404;
		const t = await createTenant(shortGrace);
		await setWebhook(t, receiver.url);
		await sleep(SHORT_GRACE_MS + 300);
		const sid = await submitForm(shortGrace, t.id, { name: 'Barbara' });
		const d = await waitForState(t, sid, 'failed');
		expect(d.attempts).toBe(1);
		expect(d.last_status).toBe(404);
		await sleep(BASE_MS * 15);
		expect(receiver.for(sid)).toHaveLength(1);
	});

	it('a settings change starts the grace again: the 401 of a re-registered receiver is retried', async () => {
		const receiver = await newReceiver();
		receiver.plan(401);
		const t = await createTenant(shortGrace);
		await setWebhook(t, receiver.url);
		await sleep(SHORT_GRACE_MS + 300);
		await setWebhook(t, receiver.url, { 'X-Webhook-Secret': 'rotated' });
		const sid = await submitForm(shortGrace, t.id, { name: 'Alan' });
		const d = await waitForState(t, sid, 'delivered');
		expect(d.attempts).toBe(2);
	});
});
