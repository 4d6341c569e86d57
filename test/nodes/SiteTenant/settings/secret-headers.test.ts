/**
 * The site's delivery headers hold its webhook secret: in n8n's engine against the reference server,
 * no output of Setting > Update shows their values (the record, `previous`, a Dry Run's preview, an
 * error item), while the site gets them and the output keeps the headers' names.
 */
import type { INodeParameters } from 'n8n-workflow';

import { HIDDEN_VALUE } from '../../../../nodes/shared/secrets';
import { expectNoSecrets, useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();

const FIRST = 'first-secret-0123456789abcdef';
const SECOND = 'second-secret-0123456789abcdef';
const headers = (value: string) => ({
	header: [
		{ name: 'X-Site-Webhook-Secret', value },
		{ name: 'X-Plain', value: 'visible-name-only' },
	],
});
const MASKED = { 'X-Site-Webhook-Secret': HIDDEN_VALUE, 'X-Plain': HIDDEN_VALUE };

test('no output shows a header value: record, previous, Dry Run preview; the site has them', async () => {
	const tenant = await ctx.tenant('secret-headers');
	const update = async (updateFields: INodeParameters, extra: INodeParameters = {}) =>
		await tenant.run({ resource: 'settings', operation: 'update', updateFields, ...extra });

	const set = await update({ contactFormWebhookHeaders: headers(FIRST) });
	expect(set.items[0].json.contact_form_webhook_headers).toEqual(MASKED);

	// A rollout that changes only the analytics code.
	const code = await update({ googleCode: 'G-ROLLOUT1' });
	expect(code.items[0].json).toMatchObject({
		google_code: 'G-ROLLOUT1',
		contact_form_webhook_headers: MASKED,
	});

	const preview = await update({ contactFormWebhookHeaders: headers(SECOND) }, { dryRun: true });
	expect(preview.items[0].json.dryRun).toEqual({
		result: 'would update',
		changes: { contact_form_webhook_headers: { before: MASKED, after: MASKED, changed: true } },
	});

	const changed = await update({ contactFormWebhookHeaders: headers(SECOND) });
	expect(changed.items[0].json.previous).toEqual({ contact_form_webhook_headers: MASKED });

	for (const run of [set, code, preview, changed]) expectNoSecrets(run, [FIRST, SECOND]);
	const stored = (await tenant.client.get('/api/settings')).data.settings;
	expect(stored.contact_form_webhook_headers).toEqual({
		'X-Site-Webhook-Secret': SECOND,
		'X-Plain': 'visible-name-only',
	});
});

test('a Custom API Call reading the settings, and an error item, show no header value either', async () => {
	const tenant = await ctx.tenant('secret-headers-call');
	await tenant.run({
		resource: 'settings',
		operation: 'update',
		updateFields: { contactFormWebhookHeaders: headers(FIRST) },
	});
	const read = await tenant.run({
		resource: 'customApiCall',
		operation: 'call',
		method: 'GET',
		path: '/api/settings',
	});
	expect(read.error).toBeUndefined();
	expect(JSON.stringify(read.items)).toContain('X-Site-Webhook-Secret');
	expectNoSecrets(read, [FIRST]);

	// The service refuses a header it cannot send; its answer names the field.
	const refused = await tenant.run(
		{
			resource: 'settings',
			operation: 'update',
			updateFields: {
				contactFormWebhookHeaders: { header: [{ name: 'Connection', value: SECOND }] },
			},
		},
		{ continueOnFail: true },
	);
	expect(refused.items[0].json.httpCode).toBe('400');
	expectNoSecrets(refused, [FIRST, SECOND]);
});
