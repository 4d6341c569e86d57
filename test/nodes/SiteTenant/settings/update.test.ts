/** Tenant node, Setting > Update. */
import { HIDDEN_VALUE } from '../../../../nodes/shared/secrets';
import { useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('Setting > Update', () => {
	test('sends only the given fields; the others keep their value', async () => {
		const tenant = await ctx.tenant('settings');
		const settings = async () => (await tenant.client.get('/api/settings')).data.settings;

		const first = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: {
				googleCode: 'G-ABC123',
				noindex: true,
				contactFormWebhookUrl: 'https://hooks.example.com/contact',
				contactFormWebhookHeaders: {
					header: [
						{ name: 'X-Form-Secret', value: 's3cret' },
						{ name: 'X-Site', value: 'acme' },
					],
				},
			},
		});
		expect(first.error).toBeUndefined();
		// The output is the settings as saved, the same the service gives to a read but for the
		// headers' values (secrets.ts), with the values of the fields it changed before (`previous`).
		const { previous, ...saved } = first.items[0].json;
		const headers = { 'X-Form-Secret': 's3cret', 'X-Site': 'acme' };
		const masked = { 'X-Form-Secret': HIDDEN_VALUE, 'X-Site': HIDDEN_VALUE };
		expect(saved).toEqual({
			google_code: 'G-ABC123',
			noindex: 1,
			statistics_iframe: null,
			contact_form_webhook_url: 'https://hooks.example.com/contact',
			contact_form_webhook_headers: masked,
		});
		expect(previous).toEqual({
			google_code: null,
			noindex: 0,
			contact_form_webhook_url: null,
			contact_form_webhook_headers: null,
		});
		expect(await settings()).toEqual({ ...saved, contact_form_webhook_headers: headers });

		const second = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: {
				statisticsIframe: '<iframe src="https://stats.example.com"></iframe>',
				noindex: false,
			},
		});
		expect(second.error).toBeUndefined();
		const { previous: changedBefore, ...savedSecond } = second.items[0].json;
		expect(savedSecond).toEqual({ ...(await settings()), contact_form_webhook_headers: masked });
		expect(changedBefore).toEqual({ statistics_iframe: null, noindex: 1 });
		expect(await settings()).toEqual({
			google_code: 'G-ABC123',
			noindex: 0,
			statistics_iframe: '<iframe src="https://stats.example.com"></iframe>',
			contact_form_webhook_url: 'https://hooks.example.com/contact',
			contact_form_webhook_headers: headers,
		});

		// An empty webhook URL clears it.
		expect(
			(
				await tenant.run({
					resource: 'settings',
					operation: 'update',
					updateFields: { contactFormWebhookUrl: '' },
				})
			).error,
		).toBeUndefined();
		expect((await settings()).contact_form_webhook_url).toBeNull();
	});

	test('no field chosen fails before sending; server-side problems come back with every field named', async () => {
		const tenant = await ctx.tenant('settings-bad');
		const empty = await tenant.run({ resource: 'settings', operation: 'update', updateFields: {} });
		expect(empty.error?.message).toBe('Add at least one setting to update');

		const invalid = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: {
				googleCode: 'G-NEW',
				contactFormWebhookUrl: 'ftp://not-http.example.com',
				contactFormWebhookHeaders: { header: [{ name: 'Content-Type', value: 'text/plain' }] },
			},
		});
		expect(invalid.error?.httpCode).toBe('400');
		expect(invalid.error?.description).toContain(
			'contact_form_webhook_url: must be an http(s) URL',
		);
		expect(invalid.error?.description).toContain(
			'contact_form_webhook_headers.Content-Type: is set by the server',
		);
		// Rejected as a whole: the valid field was not saved either.
		expect((await tenant.client.get('/api/settings')).data.settings.google_code).toBeNull();
	});
});
