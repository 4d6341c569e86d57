/**
 * Site Management Contact Form Trigger, automatic registration: n8n's HookContext drives
 * checkExists/create/delete against the reference server, the server delivers real submissions over
 * HTTP to the harness's webhook server, and n8n's WebhookContext runs the node's webhook().
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { SiteContactFormTrigger } from '../../../nodes/SiteContactFormTrigger/SiteContactFormTrigger.node';
import {
	SECRET_HEADER,
	closedPortUrl,
	deliveryOf,
	postTo,
	readSettings,
	submissionBody,
	submit,
	useContactFormContext,
	waitForDelivery,
	writeSettings,
	type TenantWithCredential,
} from '../../harness/contact-form';
import { startDelayProxy, type DelayProxy } from '../../harness/delay-proxy';
import { managedCredentialData } from '../../harness/reference-server';
import type { TriggerWorkflow, WebhookCall } from '../../harness/webhook-context';

// Without the server's set-up grace (tested in reference-server/test/delivery): a 4xx here stops the
// delivery at once, as the contract says, and the trigger's own answers are what is tested.
const ctx = useContactFormContext({ deliverySetupGraceMs: 0 });
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const HEX_32_BYTES = /^[0-9a-f]{64}$/;

/** A tenant and an activated trigger registered for it. */
async function activeTrigger(prefix: string, parameters: Record<string, unknown> = {}) {
	const tenant = await ctx.tenant(prefix);
	const trigger = ctx.trigger(parameters as never, tenant.credential);
	expect(await trigger.activate()).toBe(true);
	const settings = await readSettings(tenant);
	const secret = settings.contact_form_webhook_headers?.['X-Site-Webhook-Secret'] as string;
	return { tenant, trigger, secret };
}

/** Submits the form through the site and waits until the server has delivered it (or given up). */
async function submitAndWait(
	tenant: TenantWithCredential,
	fields: IDataObject,
	state = 'delivered',
) {
	const submissionId = await submit(ctx.site, tenant.id, fields);
	const delivery = await waitForDelivery(tenant, submissionId, state);
	const calls = ctx.harness.callsFor(submissionId);
	return { submissionId, delivery, calls };
}

function started(call: WebhookCall) {
	return call.items !== undefined;
}

describe('registration on activation (create)', () => {
	test('writes the production URL and a fresh 32-byte secret header into the site settings', async () => {
		const tenant = await ctx.tenant('activate');
		const trigger = ctx.trigger({}, tenant.credential);

		expect(await readSettings(tenant)).toMatchObject({
			contact_form_webhook_url: null,
			contact_form_webhook_headers: null,
		});
		expect(await trigger.checkExists()).toBe(false);
		expect(await trigger.activate()).toBe(true);

		const settings = await readSettings(tenant);
		expect(settings.contact_form_webhook_url).toBe(trigger.productionUrl);
		expect(Object.keys(settings.contact_form_webhook_headers ?? {})).toEqual([
			'X-Site-Webhook-Secret',
		]);
		const secret = settings.contact_form_webhook_headers?.['X-Site-Webhook-Secret'] as string;
		expect(secret).toMatch(HEX_32_BYTES);

		// The static data holds the registration (URL and the secret's hash, never the secret), as n8n
		// saves it with the workflow.
		expect(trigger.staticData.registrations).toEqual({
			[trigger.productionUrl]: {
				url: trigger.productionUrl,
				headerName: 'X-Site-Webhook-Secret',
				// Where its deliveries are claimed: the tenant base URL it registered through.
				siteUrl: ctx.site.url,
				// The only tenant_id its deliveries may name (the site said which, for a Tenant Token).
				tenantId: tenant.id,
				secretHash: createHash('sha256').update(secret).digest('hex'),
				registeredAt: expect.stringMatching(ISO),
				test: false,
			},
		});
		// What an export holds of the workflow (nodes and static data): no secret.
		const exported = JSON.stringify({
			nodes: trigger.workflow.nodes,
			staticData: trigger.workflow.staticData,
		});
		expect(exported).toContain(trigger.productionUrl);
		expect(exported).not.toContain(secret);
	});

	test("the production URL is the webhook id plus the node's random id; two nodes never share one", async () => {
		const tenant = await ctx.tenant('urls');
		const first = ctx.trigger({}, tenant.credential);
		const second = ctx.trigger({}, tenant.credential);
		expect(first.productionUrl).toBe(
			`${ctx.harness.baseUrl}/webhook/${first.node.webhookId}/${first.node.id}`,
		);
		expect(first.testUrl).toBe(
			`${ctx.harness.baseUrl}/webhook-test/${first.node.webhookId}/${first.node.id}`,
		);
		expect(second.productionUrl).not.toBe(first.productionUrl);
		// A path of the user's own still sits behind the random webhook id.
		const named = ctx.trigger({ path: 'contact' }, tenant.credential);
		expect(named.productionUrl).toBe(
			`${ctx.harness.baseUrl}/webhook/${named.node.webhookId}/contact`,
		);
	});

	test("each activation makes a new secret; a second trigger taking over the site replaces the first one's", async () => {
		const { tenant, trigger, secret } = await activeTrigger('two-secrets');
		const other = ctx.trigger({}, tenant.credential);
		expect(await other.activate()).toBe(true);
		const settings = await readSettings(tenant);
		expect(settings.contact_form_webhook_url).toBe(other.productionUrl);
		expect(settings.contact_form_webhook_headers?.['X-Site-Webhook-Secret']).not.toBe(secret);
		// The first trigger sees that the site no longer points at it.
		expect(await trigger.checkExists()).toBe(false);
		expect(await other.checkExists()).toBe(true);
	});

	test("with a token the service rejects, activation fails with the service's error and stores nothing", async () => {
		const tenant = await ctx.tenant('bad-token');
		const credential = ctx.harness.credentials.add('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: 'not-a-token-at-all',
		});
		const trigger = ctx.trigger({}, credential);
		await expect(trigger.activate()).rejects.toMatchObject({ httpCode: '401' });
		expect(trigger.staticData.registrations).toBeUndefined();
		expect((await readSettings(tenant)).contact_form_webhook_url).toBeNull();
	});

	test('works with the managed tenant credential (the token is minted from the admin token)', async () => {
		const tenant = await ctx.tenant('managed');
		const credential = ctx.harness.credentials.add(
			'siteManagedTenantApi',
			managedCredentialData(ctx.site, tenant.id),
		);
		const trigger = ctx.trigger({ authentication: 'managedTenant' }, credential);
		expect(await trigger.activate()).toBe(true);
		expect((await readSettings(tenant)).contact_form_webhook_url).toBe(trigger.productionUrl);
		expect(await trigger.checkExists()).toBe(true);
		expect(await trigger.deactivate()).toBe(true);
		expect((await readSettings(tenant)).contact_form_webhook_url).toBeNull();
	});
});

describe('checkExists', () => {
	test('true while the site points at this URL with this secret; n8n restarting does not re-register', async () => {
		const { tenant, trigger, secret } = await activeTrigger('exists');
		expect(await trigger.checkExists()).toBe(true);
		// n8n starting up activates every active workflow again (activation "init"): nothing to create.
		expect(await trigger.activate('init')).toBe(false);
		expect((await readSettings(tenant)).contact_form_webhook_headers).toEqual({
			'X-Site-Webhook-Secret': secret,
		});
	});

	test('false once the URL was changed elsewhere; activation then registers again with a new secret', async () => {
		const { tenant, trigger, secret } = await activeTrigger('url-changed');
		await writeSettings(tenant, { contact_form_webhook_url: 'https://elsewhere.example/hook' });
		expect(await trigger.checkExists()).toBe(false);

		expect(await trigger.activate('init')).toBe(true);
		const settings = await readSettings(tenant);
		expect(settings.contact_form_webhook_url).toBe(trigger.productionUrl);
		const renewed = settings.contact_form_webhook_headers?.['X-Site-Webhook-Secret'] as string;
		expect(renewed).toMatch(HEX_32_BYTES);
		expect(renewed).not.toBe(secret);
		expect(await trigger.checkExists()).toBe(true);

		// The old secret no longer opens the door; the new one does.
		const body = submissionBody(tenant.id, { message: 'hi' });
		expect((await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret })).status).toBe(
			401,
		);
		expect((await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: renewed })).status).toBe(
			200,
		);
	});

	test('false once the secret header was changed or removed elsewhere', async () => {
		const { tenant, trigger } = await activeTrigger('header-changed');
		await writeSettings(tenant, {
			contact_form_webhook_headers: { 'X-Site-Webhook-Secret': 'someone-else' },
		});
		expect(await trigger.checkExists()).toBe(false);
		await trigger.activate('init');
		expect(await trigger.checkExists()).toBe(true);
		await writeSettings(tenant, { contact_form_webhook_headers: null });
		expect(await trigger.checkExists()).toBe(false);
	});

	test('false without a stored registration, even when the site happens to point at this URL', async () => {
		const tenant = await ctx.tenant('no-static');
		const trigger = ctx.trigger({}, tenant.credential);
		await writeSettings(tenant, {
			contact_form_webhook_url: trigger.productionUrl,
			contact_form_webhook_headers: { 'X-Site-Webhook-Secret': 'guessed' },
		});
		expect(await trigger.checkExists()).toBe(false);
	});
});

describe('delivery and verification (webhook)', () => {
	test('the site delivers a submission with the secret; the workflow starts with one item and the site gets 200', async () => {
		const { tenant, trigger, secret } = await activeTrigger('deliver');
		const fields = {
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			message: 'Hello there',
			newsletter: true,
		};
		const { submissionId, delivery, calls } = await submitAndWait(tenant, fields);

		expect(delivery).toMatchObject({ state: 'delivered', attempts: 1, last_status: 200 });
		expect(calls).toHaveLength(1);
		const [call] = calls;
		expect(call.url).toBe(trigger.productionUrl);
		expect(call.requestHeaders[SECRET_HEADER]).toBe(secret);
		expect(call.status).toBe(200);
		expect(call.items).toHaveLength(1);
		expect(call.items?.[0].json).toEqual({
			submission_id: submissionId,
			tenant_id: tenant.id,
			form: 'contact',
			submitted_at: expect.stringMatching(ISO),
			fields,
		});
		// Keys in the documented order.
		expect(Object.keys(call.items?.[0].json ?? {})).toEqual([
			'submission_id',
			'tenant_id',
			'form',
			'submitted_at',
			'fields',
		]);
	});

	test('a wrong secret answers 401 with a JSON error and starts nothing (same length, other length)', async () => {
		const { tenant, trigger, secret } = await activeTrigger('wrong-secret');
		const body = submissionBody(tenant.id, { message: 'forged' });
		const sameLength = secret.slice(0, -1) + (secret.endsWith('0') ? '1' : '0');
		for (const wrong of [sameLength, 'short', `${secret}x`, secret.toUpperCase()]) {
			const before = ctx.harness.calls.length;
			const response = await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: wrong });
			expect(response.status).toBe(401);
			expect(response.data).toEqual({
				error: 'unauthorized',
				message: 'The webhook secret is missing or wrong.',
			});
			const call = ctx.harness.calls[before];
			expect(call.result).toEqual({ noWebhookResponse: true });
			expect(started(call)).toBe(false);
		}
		// The secret in a different header does not count either.
		expect((await postTo(trigger.productionUrl, body, { 'x-other-secret': secret })).status).toBe(
			401,
		);
	});

	test('a delivery before n8n has stored the registration gets 503 with Retry-After 1, then lands on the next attempt (issue 42)', async () => {
		const { tenant, trigger, secret } = await activeTrigger('not-stored-yet');
		// The site holds the URL and secret from create(); n8n saves the static data a moment later.
		const stored = trigger.staticData.registrations;
		delete trigger.staticData.registrations;

		const early = await postTo(
			trigger.productionUrl,
			submissionBody(tenant.id, { message: 'early' }),
			{ [SECRET_HEADER]: secret },
		);
		expect(early.status).toBe(503);
		expect(early.headers['retry-after']).toBe('1');
		expect(early.data).toEqual({
			error: 'not_ready',
			message: 'The trigger is still being set up; deliver again in a moment.',
		});
		expect(started(ctx.harness.calls.at(-1)!)).toBe(false);

		// n8n stores the registration right after the first delivery attempt has had its 503 (the
		// moment that attempt is recorded), before the site's retry a second later: no race with a clock.
		ctx.harness.onCall = (call) => {
			if (!call.requestBody.includes('first after publish')) return;
			trigger.staticData.registrations = stored;
			ctx.harness.onCall = undefined;
		};
		try {
			const submissionId = await submit(ctx.site, tenant.id, { message: 'first after publish' });
			const delivery = await waitForDelivery(tenant, submissionId, 'delivered');
			expect(delivery).toMatchObject({ attempts: 2, last_status: 200 });
			expect(ctx.harness.callsFor(submissionId).map(started)).toEqual([false, true]);
		} finally {
			ctx.harness.onCall = undefined;
		}
	});

	test('the site sending a wrong secret gets 401: the delivery stops (4xx) and no workflow starts', async () => {
		const { tenant, trigger } = await activeTrigger('site-wrong-secret');
		await writeSettings(tenant, {
			contact_form_webhook_headers: { 'X-Site-Webhook-Secret': 'tampered-value' },
		});
		const { delivery, calls } = await submitAndWait(tenant, { message: 'hello' }, 'failed');
		expect(delivery).toMatchObject({ state: 'failed', attempts: 1, last_status: 401 });
		expect(calls).toHaveLength(1);
		expect(calls[0].url).toBe(trigger.productionUrl);
		expect(started(calls[0])).toBe(false);
	});

	test('no secret (no header, empty header) answers 401 and starts nothing', async () => {
		const { tenant, trigger } = await activeTrigger('no-secret');
		const body = submissionBody(tenant.id, { message: 'anonymous' });
		for (const headers of [{}, { [SECRET_HEADER]: '' }] as Array<Record<string, string>>) {
			const before = ctx.harness.calls.length;
			const response = await postTo(trigger.productionUrl, body, headers);
			expect(response.status).toBe(401);
			expect(response.data.error).toBe('unauthorized');
			expect(started(ctx.harness.calls[before])).toBe(false);
		}
		// The site itself without the header (headers cleared elsewhere): the delivery is refused.
		await writeSettings(tenant, { contact_form_webhook_headers: null });
		const { delivery, calls } = await submitAndWait(tenant, { message: 'no header' }, 'failed');
		expect(delivery).toMatchObject({ last_status: 401 });
		expect(calls.map(started)).toEqual([false]);
	});

	test('a body that is not a JSON object answers 400 and starts nothing; the secret is checked first', async () => {
		const { tenant, trigger, secret } = await activeTrigger('bad-body');
		const good = { [SECRET_HEADER]: secret };
		const cases: Array<{ body: string; headers?: Record<string, string> }> = [
			{ body: '[1,2,3]' },
			{ body: '"just a string"' },
			{ body: '42' },
			{ body: 'null' },
			{ body: '' },
			{
				body: 'name=Ada&message=hi',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
			},
			{ body: '{"submission_id":"x"}', headers: { 'content-type': 'text/plain' } },
		];
		for (const { body, headers } of cases) {
			const before = ctx.harness.calls.length;
			const response = await postTo(trigger.productionUrl, body, { ...good, ...headers }, true);
			expect({ body, status: response.status }).toEqual({ body, status: 400 });
			expect(response.data).toEqual({
				error: 'invalid_json',
				message: 'The body must be a JSON object sent as application/json.',
			});
			expect(started(ctx.harness.calls[before])).toBe(false);
		}
		// Without the secret, a bad body still gets 401: nothing is told to an unauthenticated caller.
		expect((await postTo(trigger.productionUrl, '[1]', {}, true)).status).toBe(401);
		// A JSON object with a charset parameter is fine.
		const ok = await postTo(trigger.productionUrl, submissionBody(tenant.id, { a: 1 }), {
			...good,
			'content-type': 'application/json; charset=utf-8',
		});
		expect(ok.status).toBe(200);
	});
});

describe('repeats (at-least-once delivery)', () => {
	test('an answer lost on the way back makes the site deliver again: the repeat gets 200 and starts nothing', async () => {
		const { tenant, trigger } = await activeTrigger('lost-ack');
		trigger.dropNextResponse();
		const { submissionId, delivery, calls } = await submitAndWait(tenant, {
			message: 'only once please',
		});

		expect(delivery).toMatchObject({ state: 'delivered', attempts: 2, last_status: 200 });
		expect(calls).toHaveLength(2);
		// First attempt: the workflow started, but the answer never reached the site.
		expect(calls[0].status).toBe(-1);
		expect(calls[0].items?.map((item) => item.json.submission_id)).toEqual([submissionId]);
		// Second attempt: recognised, acknowledged, nothing started.
		expect(calls[1].status).toBe(200);
		expect(calls[1].items).toBeUndefined();
		expect(calls[1].responseBody).toEqual({
			message: 'Submission already received',
			submission_id: submissionId,
		});
		expect(calls.filter(started)).toHaveLength(1);
	});

	test('the same submission_id twice: the second is acknowledged without starting the workflow, and nothing is written to static data', async () => {
		const { tenant, trigger, secret } = await activeTrigger('repeat');
		const savedBefore = JSON.stringify(trigger.staticData);
		const body = submissionBody(tenant.id, { message: 'twice' });
		const first = await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret });
		const second = await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret });
		expect(first.status).toBe(200);
		expect(first.data).toBe('');
		expect(second.status).toBe(200);
		expect(second.data).toEqual({
			message: 'Submission already received',
			submission_id: body.submission_id,
		});
		expect(ctx.harness.callsFor(body.submission_id).map(started)).toEqual([true, false]);
		// n8n would not save it anyway (each request works on a copy, as in n8n).
		expect(JSON.stringify(trigger.staticData)).toBe(savedBefore);
	});

	test('50 simultaneous deliveries of one submission start the workflow once (the site holds the claim)', async () => {
		const { tenant, trigger, secret } = await activeTrigger('concurrent');
		const body = submissionBody(tenant.id, { message: 'at once' });
		const answers = await Promise.all(
			Array.from({ length: 50 }, () =>
				postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret }),
			),
		);
		expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
		const starts = ctx.harness.callsFor(body.submission_id).filter(started);
		expect(starts).toHaveLength(1);
		console.log(
			`[reliability] contact-form trigger: concurrent_duplicates=50 workflow_starts=${starts.length}`,
		);
	});

	test('a delivery reads no credential: each claims with the secret it carried, at the base URL the trigger registered through, with no token', async () => {
		const tenant = await ctx.tenant('no-credential-read');
		// The trigger is registered through a proxy in front of the site, so its claims can be watched.
		const proxy = await startDelayProxy(() => ctx.site.url);
		try {
			const credential = ctx.harness.credentials.add('siteTenantApi', {
				baseUrl: proxy.url,
				token: tenant.token,
			});
			const id = Object.values(credential)[0]!.id!;
			const trigger = ctx.trigger({}, credential);
			expect(await trigger.activate()).toBe(true);
			const secret = (await readSettings(tenant)).contact_form_webhook_headers?.[
				'X-Site-Webhook-Secret'
			] as string;
			const readsBefore = ctx.harness.credentials.reads.get(id) ?? 0;
			const first = proxy.log.length;

			const bodies = Array.from({ length: 20 }, (_, i) =>
				submissionBody(tenant.id, { message: `burst ${i}` }),
			);
			const answers = await Promise.all(
				bodies.map((body) => postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret })),
			);
			expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
			for (const body of bodies)
				expect(ctx.harness.callsFor(body.submission_id).filter(started)).toHaveLength(1);
			const claims = proxy.log.slice(first);
			expect(claims.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual(
				Array(20).fill(`POST /forms/${tenant.id}/claims 201`),
			);
			expect(claims.every((entry) => entry.headers[SECRET_HEADER] === secret)).toBe(true);
			expect(claims.some((entry) => entry.headers.authorization !== undefined)).toBe(false);

			// An edited credential changes nothing for deliveries: they are claimed where the trigger
			// registered, with the delivery's secret.
			ctx.harness.credentials.update(id, { baseUrl: ctx.site.url, token: 'stt_edited_not_used' });
			const after = submissionBody(tenant.id, { message: 'after the edit' });
			expect((await postTo(trigger.productionUrl, after, { [SECRET_HEADER]: secret })).status).toBe(
				200,
			);
			expect(ctx.harness.callsFor(after.submission_id).filter(started)).toHaveLength(1);
			expect(proxy.log.slice(first)).toHaveLength(21);
			expect((ctx.harness.credentials.reads.get(id) ?? 0) - readsBefore).toBe(0);
		} finally {
			await proxy.close();
		}
	});

	test('a rotated token does not stop deliveries: the claim needs none, and a repeat is still recognised', async () => {
		const { tenant, trigger, secret } = await activeTrigger('rotated-token');
		const first = submissionBody(tenant.id, { message: 'before rotation' });
		expect((await postTo(trigger.productionUrl, first, { [SECRET_HEADER]: secret })).status).toBe(
			200,
		);
		// The token is rotated on the admin surface; the credential still holds the revoked one.
		const rotated = await ctx.site.admin.post('/api/tenant/token', {
			id: tenant.id,
			revoke_previous: true,
		});
		expect(rotated.status).toBe(200);
		expect((await tenant.client.get('/api/settings')).status).toBe(401);

		const during = submissionBody(tenant.id, { message: 'after rotation' });
		const accepted = await postTo(trigger.productionUrl, during, { [SECRET_HEADER]: secret });
		expect(accepted.status).toBe(200);
		expect(ctx.harness.callsFor(during.submission_id).filter(started)).toHaveLength(1);
		// Its repeat is recognised by the site's claim, as before the rotation.
		const repeat = await postTo(trigger.productionUrl, during, { [SECRET_HEADER]: secret });
		expect(repeat.data).toEqual({
			message: 'Submission already received',
			submission_id: during.submission_id,
		});
		expect(ctx.harness.callsFor(during.submission_id).filter(started)).toHaveLength(1);
	});

	test('1 and "1" are different submissions; a repeat of either is recognised', async () => {
		const { tenant, trigger, secret } = await activeTrigger('typed-ids');
		const post = (id: unknown) =>
			postTo(
				trigger.productionUrl,
				{ ...submissionBody(tenant.id, {}), submission_id: id },
				{ [SECRET_HEADER]: secret },
			);
		expect((await post(1)).data).toBe('');
		expect((await post('1')).data).toBe('');
		expect((await post(1)).data).toEqual({
			message: 'Submission already received',
			submission_id: 1,
		});
		expect((await post('1')).data).toEqual({
			message: 'Submission already received',
			submission_id: '1',
		});
	});

	test('a submission_id longer than 200 characters (or not a string or number) is refused with 400 naming it, and starts nothing', async () => {
		const { tenant, trigger, secret } = await activeTrigger('long-id');
		for (const id of ['x'.repeat(201), { nested: true }, true]) {
			const answer = await postTo(
				trigger.productionUrl,
				{ ...submissionBody(tenant.id, {}), submission_id: id },
				{ [SECRET_HEADER]: secret },
			);
			expect(answer.status).toBe(400);
			expect(answer.data).toMatchObject({
				error: 'validation_failed',
				message: expect.stringContaining('submission_id'),
			});
		}
		const longest = await postTo(
			trigger.productionUrl,
			submissionBody(tenant.id, {}, 'y'.repeat(200)),
			{ [SECRET_HEADER]: secret },
		);
		expect(longest.status).toBe(200);
		expect(
			ctx.harness.calls.filter((call) => call.requestBody.includes('"x') && started(call)),
		).toHaveLength(0);
	});

	test('a repeat is recognised by another trigger process too: the claim is on the site, not in n8n', async () => {
		const { tenant, trigger, secret } = await activeTrigger('across-processes');
		const body = submissionBody(tenant.id, { message: 'from two processes' });
		expect((await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret })).data).toBe('');
		// A second n8n process: nothing of the first one's memory, the same workflow and node.
		jest.isolateModules(() => {
			type TriggerModule =
				typeof import('../../../nodes/SiteContactFormTrigger/SiteContactFormTrigger.node');
			const fresh =
				// eslint-disable-next-line @typescript-eslint/no-require-imports
				require('../../../nodes/SiteContactFormTrigger/SiteContactFormTrigger.node') as TriggerModule;
			trigger.replaceNodeType(new fresh.SiteContactFormTrigger());
		});
		const again = await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret });
		expect(again.data).toEqual({
			message: 'Submission already received',
			submission_id: body.submission_id,
		});
	});

	test('a rejected request (wrong secret) claims nothing: the real delivery still starts the workflow', async () => {
		const { tenant, trigger, secret } = await activeTrigger('reject-not-remembered');
		const body = submissionBody(tenant.id, { message: 'x' });
		expect((await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: 'forged' })).status).toBe(
			401,
		);
		expect((await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret })).data).toBe('');
	});

	test('when the site cannot take the claim, the delivery gets 503 and starts nothing; the site delivers again', async () => {
		const { tenant, trigger, secret } = await activeTrigger('claim-down');
		const body = submissionBody(tenant.id, { message: 'later' });
		// The site stops answering (the address the trigger claims at now refuses connections).
		const registrations = trigger.staticData.registrations as Record<string, IDataObject>;
		const registered = registrations[trigger.productionUrl];
		registrations[trigger.productionUrl] = { ...registered, siteUrl: await closedPortUrl() };
		const answer = await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret });
		expect(answer.status).toBe(503);
		expect(answer.data).toMatchObject({ error: 'unavailable' });
		expect(ctx.harness.callsFor(body.submission_id).filter(started)).toHaveLength(0);

		// Back up: the next delivery starts the workflow.
		registrations[trigger.productionUrl] = registered;
		expect((await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret })).data).toBe('');
		expect(ctx.harness.callsFor(body.submission_id).filter(started)).toHaveLength(1);
	}, 60_000);

	test('with "Ignore Repeated Submissions" off, a repeat starts the workflow again and nothing is claimed', async () => {
		const { tenant, trigger, secret } = await activeTrigger('repeats-allowed', {
			ignoreRepeats: false,
		});
		const body = submissionBody(tenant.id, { message: 'again' });
		for (let attempt = 0; attempt < 2; attempt++) {
			expect((await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret })).data).toBe(
				'',
			);
		}
		expect(ctx.harness.callsFor(body.submission_id).map(started)).toEqual([true, true]);
	});
});

describe('output options', () => {
	test('Lift Fields puts the form fields beside the submission keys; clashing names stay under fields', async () => {
		const { tenant } = await activeTrigger('lift', { options: { liftFields: true } });
		const fields = {
			name: 'Grace',
			email: 'grace@example.com',
			form: 'newsletter-box',
			submission_id: 'spoof',
		};
		const { submissionId, calls } = await submitAndWait(tenant, fields);
		expect(calls[0].items?.[0].json).toEqual({
			submission_id: submissionId,
			tenant_id: tenant.id,
			form: 'contact',
			submitted_at: expect.stringMatching(ISO),
			name: 'Grace',
			email: 'grace@example.com',
			fields: { form: 'newsletter-box', submission_id: 'spoof' },
		});
	});

	test('Include Request Headers adds the headers without the secret header, Authorization or Cookie', async () => {
		const { tenant, trigger, secret } = await activeTrigger('headers', {
			options: { includeHeaders: true },
		});
		const { calls } = await submitAndWait(tenant, { message: 'with headers' });
		const headers = calls[0].items?.[0].json.headers as Record<string, string>;
		expect(headers['content-type']).toBe('application/json');
		expect(headers['user-agent']).toBe('site-reference-server');
		expect(headers).not.toHaveProperty(SECRET_HEADER);
		expect(JSON.stringify(calls[0].items)).not.toContain(secret);

		const direct = submissionBody(tenant.id, { message: 'direct' });
		await postTo(trigger.productionUrl, direct, {
			'X-Site-Webhook-Secret': secret,
			Authorization: 'Bearer something',
			Cookie: 'session=abc',
			'X-Trace': 'trace-1',
		});
		const [call] = ctx.harness.callsFor(direct.submission_id);
		const output = call.items?.[0].json.headers as Record<string, string>;
		expect(output['x-trace']).toBe('trace-1');
		for (const hidden of [SECRET_HEADER, 'authorization', 'cookie'])
			expect(output).not.toHaveProperty(hidden);
		expect(JSON.stringify(call.items)).not.toContain(secret);
	});

	test('without the options: fields nested, no headers', async () => {
		const { tenant } = await activeTrigger('plain');
		const { calls } = await submitAndWait(tenant, { name: 'Plain' });
		expect(calls[0].items?.[0].json).not.toHaveProperty('headers');
		expect(calls[0].items?.[0].json.fields).toEqual({ name: 'Plain' });
	});
});

describe('keys named __proto__ are data', () => {
	const hostile = JSON.stringify({ polluted: true, isAdmin: true });
	test.each([
		[
			'at the top level of the delivery',
			false,
			`{"submission_id":"proto-top","tenant_id":"t","form":"contact","submitted_at":"x","fields":{},"__proto__":${hostile}}`,
		],
		[
			'among the fields (kept as sent)',
			false,
			`{"submission_id":"proto-field","tenant_id":"t","form":"contact","submitted_at":"x","fields":{"__proto__":${hostile},"name":"Eve"}}`,
		],
		[
			'among lifted fields',
			true,
			`{"submission_id":"proto-lifted","tenant_id":"t","form":"contact","submitted_at":"x","fields":{"__proto__":${hostile},"name":"Eve"}}`,
		],
	])(
		'%s: an own property of the output, the item keeps its plain prototype',
		async (_where, liftFields, raw) => {
			const { tenant, trigger, secret } = await activeTrigger('proto', { options: { liftFields } });
			const body = raw.replace('"tenant_id":"t"', `"tenant_id":"${tenant.id}"`);
			const answer = await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret }, true);
			expect(answer.status).toBe(200);
			const [call] = ctx.harness.calls.filter((c) => c.requestBody === body);
			const json = call.items?.[0].json as IDataObject;
			const holder = (
				liftFields || raw.includes(',"__proto__"') ? json : json.fields
			) as IDataObject;
			expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
			expect(Object.getPrototypeOf(holder)).toBe(Object.prototype);
			expect(Object.getOwnPropertyDescriptor(holder, '__proto__')?.value).toEqual({
				polluted: true,
				isAdmin: true,
			});
			expect((json as { polluted?: unknown }).polluted).toBeUndefined();
			expect((holder as { isAdmin?: unknown }).isAdmin).toBeUndefined();
			expect(JSON.parse(JSON.stringify(json))).toEqual(JSON.parse(JSON.stringify(json)));
		},
	);
});

describe('deactivation (delete)', () => {
	test('clears the webhook URL and headers and forgets the registration; submissions are no longer delivered', async () => {
		const { tenant, trigger } = await activeTrigger('deactivate');
		expect(await trigger.deactivate()).toBe(true);
		expect(await readSettings(tenant)).toMatchObject({
			contact_form_webhook_url: null,
			contact_form_webhook_headers: null,
		});
		expect(trigger.staticData.registrations).toEqual({});
		expect(await trigger.checkExists()).toBe(false);

		// Without a webhook URL the site stores the submission and delivers nothing.
		const submissionId = await submit(ctx.site, tenant.id, { message: 'after deactivation' });
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(await deliveryOf(tenant, submissionId)).toBeUndefined();
		expect(ctx.harness.callsFor(submissionId)).toHaveLength(0);
	});

	test('leaves the settings alone when the site was pointed elsewhere in the meantime', async () => {
		const { tenant, trigger } = await activeTrigger('deactivate-elsewhere');
		const elsewhere = {
			contact_form_webhook_url: 'https://other.example/hook',
			contact_form_webhook_headers: { 'X-Key': 'k' },
		};
		await writeSettings(tenant, elsewhere);
		expect(await trigger.deactivate()).toBe(true);
		expect(await readSettings(tenant)).toMatchObject(elsewhere);
		expect(trigger.staticData.registrations).toEqual({});
	});

	test('activate, deactivate, activate again: a new registration with a new secret', async () => {
		const { tenant, trigger, secret } = await activeTrigger('cycle');
		await trigger.deactivate();
		expect(await trigger.activate()).toBe(true);
		const settings = await readSettings(tenant);
		expect(settings.contact_form_webhook_url).toBe(trigger.productionUrl);
		expect(settings.contact_form_webhook_headers?.['X-Site-Webhook-Secret']).not.toBe(secret);
		const { calls } = await submitAndWait(tenant, { message: 'back again' });
		expect(calls.map(started)).toEqual([true]);
	});
});

/** The tenant's test webhooks as the site lists them (never with their headers). */
async function testWebhooksOf(tenant: TenantWithCredential) {
	const response = await tenant.client.get('/api/contact-form/test-webhooks');
	expect(response.status).toBe(200);
	return response.data.data as Array<{ url: string; expires_at: string }>;
}

/** Waits until the harness has seen a call for each given submission at the given URL kind. */
async function waitForCalls(ids: string[], isTest: boolean, timeoutMs = 10_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const calls = ids.map((id) => ctx.harness.callsFor(id).filter((c) => c.isTest === isTest));
		if (calls.every((found) => found.length > 0)) return calls.flat();
		if (Date.now() > deadline)
			throw new Error(`no ${isTest ? 'test' : 'live'} call for some of ${ids}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

describe('test URL (listening in the editor)', () => {
	let tenant: TenantWithCredential;
	let trigger: TriggerWorkflow;
	let productionSecret: string;
	let productionSettings: Awaited<ReturnType<typeof readSettings>>;

	beforeAll(async () => {
		({ tenant, trigger, secret: productionSecret } = await activeTrigger('listen'));
		productionSettings = await readSettings(tenant);
	});

	test('listening adds the test URL as a test webhook with its own secret; the live setting stays, and no secret is kept anywhere', async () => {
		const savedBefore = JSON.stringify(trigger.staticData);
		const listenStarted = Date.now();
		expect(await trigger.listen()).toBe(true);
		const listenEnded = Date.now();
		expect(await readSettings(tenant)).toEqual(productionSettings);
		const [testWebhook, ...others] = await testWebhooksOf(tenant);
		expect(others).toEqual([]);
		expect(testWebhook.url).toBe(trigger.testUrl);
		// n8n listens for at most 10 minutes; the site stops copying on its own shortly after: more
		// than 10 and at most 11 minutes from the moment the test webhook was set (during listen(),
		// on this process's clock, which the site shares).
		const expires = Date.parse(testWebhook.expires_at);
		expect(expires).toBeGreaterThan(listenStarted + 600_000);
		expect(expires).toBeLessThanOrEqual(listenEnded + 660_000);
		expect(JSON.stringify(trigger.staticData)).toBe(savedBefore);
		const registration = (trigger.testStaticData?.registrations as IDataObject)[trigger.testUrl];
		expect(registration).toEqual({
			url: trigger.testUrl,
			headerName: 'X-Site-Webhook-Secret',
			siteUrl: ctx.site.url,
			tenantId: tenant.id,
			secretHash: expect.stringMatching(HEX_32_BYTES),
			registeredAt: expect.stringMatching(ISO),
			test: true,
			via: 'copies',
		});
		// The test copy of the static data (n8n caches it with the test webhook) holds no secret.
		const kept = JSON.stringify(trigger.testStaticData);
		expect(kept).not.toContain(productionSecret);
		expect(kept).not.toContain('replaced');
		expect(await trigger.checkExists(true)).toBe(true);
	});

	test('a submission while listening starts the published workflow (claimed) and the test run (a copy, not claimed)', async () => {
		const { submissionId, delivery } = await submitAndWait(tenant, { message: 'test event' });
		expect(delivery.attempts).toBe(1);
		const calls = await waitForCalls([submissionId], true);
		const all = ctx.harness.callsFor(submissionId);
		expect(all.map((call) => [call.isTest, call.status, started(call)]).sort()).toEqual([
			[false, 200, true],
			[true, 200, true],
		]);
		expect(calls[0].url).toBe(trigger.testUrl);
		expect(calls[0].items?.[0].json).toMatchObject({
			submission_id: submissionId,
			fields: { message: 'test event' },
		});
		// The claim is the published workflow's: a repeat of the live delivery is still recognised.
		const claim = await tenant.client.post('/api/contact-form/claims', {
			consumer: `${trigger.workflow.id}/${trigger.node.id}`,
			key: JSON.stringify(submissionId),
		});
		expect(claim.status).toBe(200);
	});

	test('10 submissions while listening: 10 executions of the published workflow, each delivered once', async () => {
		const ids = await Promise.all(
			Array.from({ length: 10 }, (_, i) => submit(ctx.site, tenant.id, { n: i })),
		);
		for (const id of ids) await waitForDelivery(tenant, id, 'delivered');
		const live = await waitForCalls(ids, false);
		expect(live.filter(started)).toHaveLength(10);
		expect(live.map((call) => call.url)).toEqual(Array(10).fill(trigger.productionUrl));
		// The test run got its copies too (one attempt each, nothing stored on the site for them).
		expect(await waitForCalls(ids, true)).toHaveLength(10);
	});

	test("each URL takes only its own secret: production's does not open the test URL, nor the reverse", async () => {
		const body = () => submissionBody(tenant.id, {});
		expect(
			(await postTo(trigger.testUrl, body(), { [SECRET_HEADER]: productionSecret })).status,
		).toBe(401);
		expect(
			(await postTo(trigger.productionUrl, body(), { [SECRET_HEADER]: 'b'.repeat(64) })).status,
		).toBe(401);
		expect(
			(await postTo(trigger.productionUrl, body(), { [SECRET_HEADER]: productionSecret })).status,
		).toBe(200);
	});

	test('when listening stops, the test webhook is removed; the live setting was never touched', async () => {
		expect(await trigger.stopListening()).toBe(true);
		expect(await testWebhooksOf(tenant)).toEqual([]);
		expect(await readSettings(tenant)).toEqual(productionSettings);
		expect(await trigger.checkExists()).toBe(true);
		const { calls } = await submitAndWait(tenant, { message: 'production again' });
		expect(calls.map((call) => [call.isTest, started(call)])).toEqual([[false, true]]);
	});

	test('listening on a workflow that is not published: copies only, the settings stay empty', async () => {
		const inactiveTenant = await ctx.tenant('listen-inactive');
		const inactive = ctx.trigger({}, inactiveTenant.credential);
		expect(await inactive.listen()).toBe(true);
		expect((await readSettings(inactiveTenant)).contact_form_webhook_url).toBeNull();
		const submissionId = await submit(ctx.site, inactiveTenant.id, { message: 'only test' });
		const calls = await waitForCalls([submissionId], true);
		expect(calls.map(started)).toEqual([true]);
		await inactive.stopListening();
		expect(await testWebhooksOf(inactiveTenant)).toEqual([]);
	});
});

describe('test URL on a service without test webhooks', () => {
	let proxy: DelayProxy;
	const hidden = () =>
		`${proxy.url}/_/hide=${encodeURIComponent('/api/contact-form/test-webhooks')}`;

	beforeAll(async () => {
		proxy = await startDelayProxy(() => ctx.site.url);
	});
	afterAll(async () => await proxy.close());

	async function tenantBehindProxy(prefix: string) {
		const tenant = await ctx.tenant(prefix);
		const credential = ctx.harness.credentials.add('siteTenantApi', {
			baseUrl: hidden(),
			token: tenant.token,
		});
		return { ...tenant, credential };
	}

	test('listening refuses to displace the live setting: clear error, settings and static data unchanged', async () => {
		const tenant = await tenantBehindProxy('no-copies');
		const trigger = ctx.trigger({}, tenant.credential);
		expect(await trigger.activate()).toBe(true);
		const before = await readSettings(tenant);
		await expect(trigger.listen()).rejects.toThrow(
			/cannot send test copies.*take its submissions away/,
		);
		expect(await readSettings(tenant)).toEqual(before);
		expect(trigger.testStaticData?.registrations).toBeUndefined();
		const { calls } = await submitAndWait(tenant, { message: 'still live' });
		expect(calls.map((call) => [call.isTest, started(call)])).toEqual([[false, true]]);
	});

	test('with no webhook set, listening takes the setting and clears it when it stops', async () => {
		const tenant = await tenantBehindProxy('no-copies-empty');
		const trigger = ctx.trigger({}, tenant.credential);
		expect(await trigger.listen()).toBe(true);
		expect((await readSettings(tenant)).contact_form_webhook_url).toBe(trigger.testUrl);
		expect((trigger.testStaticData?.registrations as IDataObject)[trigger.testUrl]).toMatchObject({
			test: true,
			via: 'settings',
		});
		const { calls } = await submitAndWait(tenant, { message: 'only test' });
		expect(calls.map((call) => [call.isTest, started(call)])).toEqual([[true, true]]);
		await trigger.stopListening();
		expect(await readSettings(tenant)).toMatchObject({
			contact_form_webhook_url: null,
			contact_form_webhook_headers: null,
		});
	});
});

test('the node describes itself as a trigger with one POST webhook, answered on receipt unless Acknowledge Delivery says when finished', () => {
	const { description, webhookMethods } = new SiteContactFormTrigger();
	expect(description).toMatchObject({
		name: 'siteContactFormTrigger',
		displayName: 'Site Management Contact Form Trigger',
		group: ['trigger'],
		inputs: [],
		outputs: ['main'],
	});
	expect(description.webhooks).toEqual([
		expect.objectContaining({
			name: 'default',
			httpMethod: 'POST',
			responseData: 'noData',
			isFullPath: false,
		}),
	]);
	expect(Object.keys(webhookMethods.default).sort()).toEqual(['checkExists', 'create', 'delete']);
	// n8n evaluates responseMode per request from the node's parameters.
	const expression = String(description.webhooks?.[0].responseMode);
	expect(expression).toMatch(/^=\{\{.*\}\}$/);
	const responseMode = (options: IDataObject) =>
		new Function('$parameter', `return ${expression.slice(3, -2)}`)({ options }) as string;
	expect(responseMode({})).toBe('onReceived');
	expect(responseMode({ acknowledge: 'onReceived' })).toBe('onReceived');
	expect(responseMode({ acknowledge: 'lastNode' })).toBe('lastNode');
	const option = description.properties
		.find((p) => p.name === 'options')
		?.options?.find((o) => 'name' in o && o.name === 'acknowledge');
	expect(option).toMatchObject({
		default: 'onReceived',
		options: [{ value: 'onReceived' }, { value: 'lastNode' }],
	});
});

test("the notices name n8n's real buttons and say what happens to live submissions while testing", () => {
	const { properties } = new SiteContactFormTrigger().description;
	const notice = (name: string) => String(properties.find((p) => p.name === name)?.displayName);
	for (const name of ['automaticNotice', 'manualNotice']) {
		expect(notice(name)).toContain('"Execute step"');
		expect(notice(name)).toContain('"Test this trigger"');
		expect(notice(name)).not.toMatch(/listen for test event/i);
	}
	expect(notice('automaticNotice')).toMatch(/published workflow still receives every submission/);
	expect(notice('manualNotice')).toMatch(
		/live submissions go to the test run, not to the published workflow/,
	);
});
