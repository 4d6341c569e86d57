/**
 * Setting > Update with Only If Unchanged, in n8n's engine against the reference server: a write
 * approved from a Dry Run preview happens only where the site still has the previewed values; an edit
 * made after the preview fails the item, naming the field, the current and the previewed value.
 */
import type { INodeParameters } from 'n8n-workflow';

import { useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();
const plain = useNodeTestContext({ extensions: false });

type Tenant = Awaited<ReturnType<typeof ctx.tenant>>;

const settingsOf = async (tenant: Tenant) =>
	(await tenant.client.get('/api/settings')).data.settings as Record<string, unknown>;
const setCode = async (tenant: Tenant, googleCode: string) =>
	await tenant.run({ resource: 'settings', operation: 'update', updateFields: { googleCode } });

/** The rollout: a preview, then (after approval) the write fed by that preview. */
async function previewThenApply(tenant: Tenant, googleCode: string, between?: () => Promise<void>) {
	const preview = await tenant.run({
		resource: 'settings',
		operation: 'update',
		updateFields: { googleCode },
		dryRun: true,
	});
	await between?.();
	return await tenant.run(
		{
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode },
			onlyIfUnchanged: true,
			previewedValues: '={{ $json.dryRun }}',
		},
		{ input: preview.items.map(({ json }) => ({ json })), continueOnFail: true },
	);
}

test('applied where the site still has the previewed value', async () => {
	const tenant = await ctx.tenant('unchanged-applied');
	await setCode(tenant, 'G-OLD03');
	const applied = await previewThenApply(tenant, 'G-NEW03');
	expect(applied.items[0].json).toMatchObject({
		google_code: 'G-NEW03',
		previous: { google_code: 'G-OLD03' },
	});
	expect(await settingsOf(tenant)).toMatchObject({ google_code: 'G-NEW03' });
});

test('an edit after the preview fails the item naming field, current and previewed value; the edit stays', async () => {
	const tenant = await ctx.tenant('unchanged-edited');
	await setCode(tenant, 'G-OLD03');
	const result = await previewThenApply(tenant, 'G-NEW03', async () => {
		await setCode(tenant, 'G-HUMAN03');
	});
	expect(result.items[0].json.error).toBe(
		'Only If Unchanged: google_code is "G-HUMAN03" on the site, not the previewed "G-OLD03"; nothing was written',
	);
	expect(await settingsOf(tenant)).toMatchObject({ google_code: 'G-HUMAN03' });
});

test('Previewed Values as a plain object of expected values; a field it lacks, an empty one, or a masked secret fail', async () => {
	const tenant = await ctx.tenant('unchanged-values');
	await setCode(tenant, 'G-OLD04');
	const apply = async (
		previewedValues: string,
		updateFields: INodeParameters = { googleCode: 'G-NEW04' },
	) =>
		await tenant.run(
			{
				resource: 'settings',
				operation: 'update',
				updateFields,
				onlyIfUnchanged: true,
				previewedValues,
			},
			{ continueOnFail: true },
		);

	expect((await apply('{"google_code": "G-OTHER"}')).items[0].json.error).toMatch(
		/^Only If Unchanged: google_code is "G-OLD04" on the site, not the previewed "G-OTHER"/,
	);
	expect((await apply('{"noindex": 0}')).items[0].json.error).toBe(
		'Only If Unchanged: the preview has no value for google_code; nothing was written',
	);
	expect((await apply('')).items[0].json.error).toMatch(
		/^Only If Unchanged: Previewed Values is empty/,
	);
	expect((await apply('{not json')).items[0].json.error).toMatch(/Previewed Values is not JSON/);
	const secret = await apply(
		'{"contact_form_webhook_headers": {"X-Site-Webhook-Secret": "**hidden**"}}',
		{
			contactFormWebhookHeaders: {
				header: [{ name: 'X-Site-Webhook-Secret', value: 'x'.repeat(20) }],
			},
		},
	);
	expect(secret.items[0].json.error).toMatch(
		/contact_form_webhook_headers is a secret, masked in the preview/,
	);
	expect(await settingsOf(tenant)).toMatchObject({ google_code: 'G-OLD04' });

	expect((await apply('{"google_code": "G-OLD04"}')).items[0].json).toMatchObject({
		google_code: 'G-NEW04',
	});
});

test('a service that cannot read settings: Only If Unchanged fails and writes nothing', async () => {
	const tenant = await plain.tenant('unchanged-unreadable');
	const result = await tenant.run(
		{
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: 'G-X' },
			onlyIfUnchanged: true,
			previewedValues: '{"google_code": null}',
		},
		{ continueOnFail: true },
	);
	expect(result.items[0].json.error).toBe("Only If Unchanged cannot read this site's settings");
});
