/**
 * Settings (partial updates) and variables (behind the enable switch).
 */
import {
	type Harness,
	type Tenant,
	createTenant,
	detailFields,
	expectError,
	expectOk,
	removeDataDirs,
	start,
	stopAll,
} from '../helpers';

let withVars: Harness;
let withoutVars: Harness;

beforeAll(async () => {
	[withVars, withoutVars] = await Promise.all([
		start({ enableVariables: true }),
		start({ enableVariables: false }),
	]);
});

afterAll(async () => {
	await stopAll();
	removeDataDirs();
});

describe('POST /api/settings', () => {
	let t: Tenant;
	beforeAll(async () => {
		t = await createTenant(withVars);
	});

	it('saves fields and returns the whole settings', async () => {
		const res = await t.api.post('/api/settings', { google_code: 'G-ABC123', noindex: 1 });
		expect(res.status).toBe(200);
		expect(res.data.message).toBe('Settings saved successfully.');
		expect(res.data.settings).toEqual(
			expect.objectContaining({ google_code: 'G-ABC123', noindex: 1 }),
		);
	});

	it('keeps the value of every field not sent', async () => {
		const tt = await createTenant(withVars);
		expectOk(await tt.api.post('/api/settings', { google_code: 'G-KEEP' }));
		expectOk(await tt.api.post('/api/settings', { noindex: 1 }));
		expectOk(
			await tt.api.post('/api/settings', {
				statistics_iframe: '<iframe src="https://stats.example.com"></iframe>',
			}),
		);
		expectOk(
			await tt.api.post('/api/settings', {
				contact_form_webhook_url: 'https://hooks.example.com/contact',
				contact_form_webhook_headers: { 'X-Secret': 's3cr3t' },
			}),
		);
		const res = await tt.api.post('/api/settings', { noindex: 0 });
		expect(res.status).toBe(200);
		expect(res.data.settings).toEqual(
			expect.objectContaining({
				google_code: 'G-KEEP',
				noindex: 0,
				statistics_iframe: '<iframe src="https://stats.example.com"></iframe>',
				contact_form_webhook_url: 'https://hooks.example.com/contact',
				contact_form_webhook_headers: { 'X-Secret': 's3cr3t' },
			}),
		);
	});

	it('lists every bad field at once', async () => {
		const res = await t.api.post('/api/settings', {
			google_code: 12,
			noindex: 'yes',
			statistics_iframe: { no: 1 },
			contact_form_webhook_url: 'not a url',
			contact_form_webhook_headers: 'X-Secret: 1',
		});
		const fields = detailFields(expectError(res, 400, 'validation_failed'));
		expect(fields).toEqual(
			expect.arrayContaining([
				'google_code',
				'noindex',
				'statistics_iframe',
				'contact_form_webhook_url',
				'contact_form_webhook_headers',
			]),
		);
	});

	it('rejects a webhook url that is not an http(s) URL', async () => {
		for (const url of ['not a url', 'ftp://example.com/x', 'javascript:alert(1)']) {
			const res = await t.api.post('/api/settings', { contact_form_webhook_url: url });
			expect(detailFields(expectError(res, 400, 'validation_failed'))).toContain(
				'contact_form_webhook_url',
			);
		}
	});

	it('a rejected update changes nothing', async () => {
		const tt = await createTenant(withVars);
		expectOk(await tt.api.post('/api/settings', { google_code: 'G-STAY', noindex: 0 }));
		expectError(
			await tt.api.post('/api/settings', { google_code: 'G-NEW', noindex: 'x' }),
			400,
			'validation_failed',
		);
		const res = await tt.api.post('/api/settings', { noindex: 0 });
		expect(res.data.settings.google_code).toBe('G-STAY');
	});

	it('rejects webhook headers whose values are not strings', async () => {
		const res = await t.api.post('/api/settings', {
			contact_form_webhook_headers: { 'X-Secret': 5 },
		});
		const fields = detailFields(expectError(res, 400, 'validation_failed'));
		expect(fields.some((f) => f.startsWith('contact_form_webhook_headers'))).toBe(true);
	});
});

describe('variables', () => {
	it('with the switch on: put, get, update, delete', async () => {
		const t = await createTenant(withVars);
		expect(expectOk(await t.api.get('/api/variables')).data).toEqual([]);

		const put = await t.api.put('/api/variables', { key: 'SITE_COLOR', value: 'blue' });
		expect(put.status).toBe(200);
		expect(put.data).toEqual({
			message: 'Variable saved.',
			variable: { key: 'SITE_COLOR', value: 'blue' },
		});
		expectOk(await t.api.put('/api/variables', { key: 'OTHER', value: 'x' }));

		let list = expectOk(await t.api.get('/api/variables')).data;
		expect(list).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ key: 'SITE_COLOR', value: 'blue' }),
				expect.objectContaining({ key: 'OTHER', value: 'x' }),
			]),
		);
		expect(list).toHaveLength(2);

		const update = await t.api.put('/api/variables', { key: 'SITE_COLOR', value: 'red' });
		expect(update.data.variable).toEqual({ key: 'SITE_COLOR', value: 'red' });
		list = expectOk(await t.api.get('/api/variables')).data;
		expect(list).toHaveLength(2);
		expect(list.find((v: any) => v.key === 'SITE_COLOR').value).toBe('red');

		const del = await t.api.delete('/api/variables', { data: { key: 'SITE_COLOR' } });
		expect(del.status).toBe(200);
		expect(del.data).toEqual({ message: 'Variable deleted.' });
		list = expectOk(await t.api.get('/api/variables')).data;
		expect(list.map((v: any) => v.key)).toEqual(['OTHER']);
	});

	it('validates key and value together', async () => {
		const t = await createTenant(withVars);
		const res = await t.api.put('/api/variables', {});
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual(
			expect.arrayContaining(['key', 'value']),
		);
		const del = await t.api.delete('/api/variables', { data: {} });
		expect(detailFields(expectError(del, 400, 'validation_failed'))).toContain('key');
	});

	it('with the switch off: every variables call answers 403 feature_disabled', async () => {
		const t = await createTenant(withoutVars);
		expectError(await t.api.get('/api/variables'), 403, 'feature_disabled');
		expectError(
			await t.api.put('/api/variables', { key: 'A', value: 'b' }),
			403,
			'feature_disabled',
		);
		expectError(
			await t.api.delete('/api/variables', { data: { key: 'A' } }),
			403,
			'feature_disabled',
		);
	});

	it('with the switch off: still needs a valid tenant token first (401 / 403 forbidden)', async () => {
		expectError(await withoutVars.anon.get('/api/variables'), 401, 'unauthorized');
		expectError(await withoutVars.admin.get('/api/variables'), 403, 'forbidden');
	});
});
