/**
 * The public contact form: a small body limit of its own, a bounded number and
 * length of fields, and rate limits per client address and per tenant answered 429 with Retry-After,
 * all before anything is stored.
 */
import {
	type Harness,
	Receiver,
	clientFrom,
	createTenant as createBareTenant,
	detailFields,
	expectError,
	removeDataDirs,
	setWebhook,
	start,
	stopAll,
} from '../helpers';
import { parseCommandLine, resolveConfig, usage } from '../../src/config';

let h: Harness;
let receiver: Receiver;

/** A tenant with a webhook: without one the site stores no submission, and "nothing stored" would prove nothing. */
async function createTenant(server: Harness) {
	const t = await createBareTenant(server);
	await setWebhook(t, `${receiver.url}/hook`);
	return t;
}

beforeAll(async () => {
	receiver = await new Receiver().start();
	h = await start({ formMaxBodyKb: 4, formMaxFields: 5, formMaxFieldLength: 100 });
});
afterAll(async () => {
	await stopAll();
	await receiver.stop();
	removeDataDirs();
});

function storedSubmissions(server: Harness, tenantId: string): number {
	const { store } = server.server.app.site;
	const tenant = store.tenants.findById(tenantId)!;
	return (
		store.db
			.prepare('SELECT COUNT(*) AS n FROM submissions WHERE tenant_pk = ?')
			.get(tenant.pk) as { n: number }
	).n;
}

describe('body and field limits', () => {
	it('a body over --form-max-body-kb is 413 (the API keeps its own, larger limit)', async () => {
		const t = await createTenant(h);
		expectError(
			await h.anon.post(`/forms/${t.id}/contact`, { message: 'x'.repeat(5 * 1024) }),
			413,
			'payload_too_large',
		);
		expect(storedSubmissions(h, t.id)).toBe(0);
		expect(
			(
				await t.api.put('/api/content', {
					url: '/none',
					templates: [{ text: 'x'.repeat(64 * 1024) }],
				})
			).status,
		).toBe(404);
	});

	it('more fields than --form-max-fields, a text field over --form-max-field-length, or a long field name: 400 naming it', async () => {
		const t = await createTenant(h);
		const six = Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`f${n}`, 'v']));
		expect(
			detailFields(
				expectError(await h.anon.post(`/forms/${t.id}/contact`, six), 400, 'validation_failed'),
			),
		).toEqual(['body']);
		expect(
			detailFields(
				expectError(
					await h.anon.post(`/forms/${t.id}/contact`, { message: 'x'.repeat(101) }),
					400,
					'validation_failed',
				),
			),
		).toEqual(['message']);
		expect(
			expectError(
				await h.anon.post(`/forms/${t.id}/contact`, { ['n'.repeat(201)]: 'v' }),
				400,
				'validation_failed',
			).details,
		).toHaveLength(1);
		expect(storedSubmissions(h, t.id)).toBe(0);
		// At the limits: accepted.
		const five = Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`f${n}`, 'x'.repeat(100)]));
		expect((await h.anon.post(`/forms/${t.id}/contact`, five)).status).toBe(202);
	});
});

describe('rate limits', () => {
	it('per client address: over the limit 429 rate_limited with Retry-After, nothing stored', async () => {
		const limited = await start({ formRatePerAddress: 3, formRatePerTenant: 0 });
		const [a, b] = [await createTenant(limited), await createTenant(limited)];
		const statuses: number[] = [];
		for (const tenant of [a, a, b, b])
			statuses.push((await limited.anon.post(`/forms/${tenant.id}/contact`, { n: 1 })).status);
		expect(statuses).toEqual([202, 202, 202, 429]);
		const refused = await limited.anon.post(`/forms/${b.id}/contact`, { n: 1 });
		expectError(refused, 429, 'rate_limited');
		expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
		expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
		expect(storedSubmissions(limited, a.id) + storedSubmissions(limited, b.id)).toBe(3);
		// Other surfaces are not limited.
		expect((await a.api.get('/api/settings')).status).toBe(200);
	});

	it('per tenant: one tenant flooded does not stop another', async () => {
		const limited = await start({ formRatePerAddress: 0, formRatePerTenant: 2 });
		const [a, b] = [await createTenant(limited), await createTenant(limited)];
		const statuses: number[] = [];
		for (const tenant of [a, a, a, b])
			statuses.push((await limited.anon.post(`/forms/${tenant.id}/contact`, { n: 1 })).status);
		expect(statuses).toEqual([202, 202, 429, 202]);
	});

	it('both budgets on: spread over ten loopback addresses, the per-tenant budget still holds', async () => {
		const limited = await start({ formRatePerAddress: 20, formRatePerTenant: 30 });
		const t = await createTenant(limited);
		const addresses = Array.from({ length: 10 }, (_, n) => `127.0.0.${n + 2}`);
		const statuses: number[] = [];
		const retryAfter: number[] = [];
		for (const address of addresses) {
			const from = clientFrom(limited.url, address);
			for (let n = 0; n < 10; n++) {
				const answer = await from.post(`/forms/${t.id}/contact`, { n });
				statuses.push(answer.status);
				if (answer.status === 429) retryAfter.push(Number(answer.headers['retry-after']));
			}
		}
		expect(statuses.filter((status) => status === 202)).toHaveLength(30);
		expect(statuses.filter((status) => status === 429)).toHaveLength(70);
		expect(retryAfter.every((seconds) => seconds >= 1 && seconds <= 60)).toBe(true);
		expect(storedSubmissions(limited, t.id)).toBe(30);
		// One address past its own budget is refused whatever the tenant's.
		const other = await createTenant(limited);
		const one = clientFrom(limited.url, '127.0.0.20');
		const own: number[] = [];
		for (let n = 0; n < 21; n++)
			own.push((await one.post(`/forms/${other.id}/contact`, { n })).status);
		expect(own.filter((status) => status === 202)).toHaveLength(20);
		expect(own[20]).toBe(429);
	});

	it('flags and environment twins; 0 turns a limit off; defaults 60 per address and 600 per tenant a minute, 64 KB', () => {
		expect(
			parseCommandLine(['--form-rate-per-address', '0', '--form-max-body-kb', '16'], {
				SITE_SERVER_FORM_RATE_PER_TENANT: '5',
			}),
		).toEqual({
			help: false,
			options: expect.objectContaining({
				formRatePerAddress: 0,
				formRatePerTenant: 5,
				formMaxBodyKb: 16,
			}),
		});
		expect(resolveConfig({ adminToken: 'x' })).toEqual(
			expect.objectContaining({
				formRatePerAddress: 60,
				formRatePerTenant: 600,
				formMaxBodyKb: 64,
				formMaxFields: 50,
				formMaxFieldLength: 10_000,
			}),
		);
		expect(() => resolveConfig({ formRatePerTenant: -1 })).toThrow(
			/formRatePerTenant must be an integer >= 0/,
		);
		expect(() => resolveConfig({ formMaxFields: 0 })).toThrow(
			/formMaxFields must be an integer >= 1/,
		);
		expect(usage()).toMatch(
			/--form-rate-per-address <value>.*\n.*SITE_SERVER_FORM_RATE_PER_ADDRESS/,
		);
	});
});
