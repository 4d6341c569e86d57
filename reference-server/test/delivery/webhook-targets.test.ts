/**
 * Where a webhook may point and what a delivery costs: a reply is read up to a cap,
 * link-local, metadata and special-purpose addresses (in every spelling ipaddr.js classifies) and the
 * server itself are refused when set and again after DNS resolution at delivery time, loopback and
 * private addresses only with `--webhook-allow`, `--webhook-deny` refuses more, a delivery relayed back
 * into a form is refused so no loop can form, and a failed attempt's last_error does not tell a closed
 * port from a silent one. No test sends a request to a non-loopback address: refusals are saved and read back.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import ipaddr from 'ipaddr.js';
import { parseCidrList, canonicalAddress } from '../../src/delivery/target-policy';
import { UNREACHABLE } from '../../src/delivery/worker';
import { resolveConfig } from '../../src/config';
import {
	type Harness,
	type Tenant,
	Receiver,
	closedPort,
	createTenant,
	deliveries,
	deliveryOf,
	detailFields,
	expectError,
	removeDataDirs,
	setWebhook,
	sleep,
	start,
	stopAll,
	submitForm,
	waitFor,
} from '../helpers';

let h: Harness;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
	h = await start({ deliveryMaxAttempts: 2 });
});

afterAll(async () => {
	await stopAll();
	await Promise.all(closers.map((close) => close()));
	removeDataDirs();
});

async function listen(
	handler: http.RequestListener,
): Promise<{ url: string; server: http.Server }> {
	const server = http.createServer(handler);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	closers.push(async () => {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	});
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function settled(t: Tenant, submissionId: string, timeoutMs = 10_000): Promise<any> {
	return waitFor(
		async () => {
			const d = await deliveryOf(t, submissionId);
			return d && d.state !== 'pending' ? d : undefined;
		},
		timeoutMs,
		`delivery ${submissionId} settled`,
	);
}

/** Saves the webhook URL straight into the store, as a setting saved before a rule or a DNS answer changed. */
function storeWebhook(server: Harness, t: Tenant, url: string): void {
	const tenant = server.server.app.site.store.tenants.findById(t.id)!;
	server.server.app.site.store.settings.save(tenant.pk, { contact_form_webhook_url: url });
}

describe('the webhook reply is read up to a cap', () => {
	/**
	 * The attempt's own timeout, far beyond RECORDED_WITHIN_MS: a worker that stopped reading but held
	 * the reply open until its timeout (or read it to the end) could not record the delivery in time.
	 */
	const DELIVERY_TIMEOUT_MS = 10 * 60_000;
	/** A deadline only: recording takes well under a second, a worker waiting on the reply 10 minutes. */
	const RECORDED_WITHIN_MS = 30_000;

	it('a receiver streaming 1 GB is cut off after a few MB at most; the delivery is recorded at once', async () => {
		const patient = await start({ deliveryMaxAttempts: 2, deliveryTimeoutMs: DELIVERY_TIMEOUT_MS });
		let written = 0;
		let closed: () => void = () => undefined;
		const socketClosed = new Promise<void>((resolve) => (closed = resolve));
		const receiver = await listen((req, res) => {
			req.resume();
			req.on('end', () => {
				res.writeHead(200, { 'content-type': 'application/octet-stream' });
				const chunk = Buffer.alloc(64 * 1024, 'x');
				const pump = () => {
					while (written < 1024 ** 3) {
						written += chunk.length;
						if (!res.write(chunk)) return void res.once('drain', pump);
					}
					res.end();
				};
				res.on('close', () => closed());
				pump();
			});
		});
		const t = await createTenant(patient);
		await setWebhook(t, `${receiver.url}/stream`);
		const submissionId = await submitForm(patient, t.id, { message: 'hello' });
		const delivery = await settled(t, submissionId, RECORDED_WITHIN_MS);
		// The worker hung up on the reply (the receiver saw its socket close) rather than waiting on it.
		let giveUp: NodeJS.Timeout | undefined;
		await Promise.race([
			socketClosed,
			new Promise((_resolve, reject) => {
				giveUp = setTimeout(
					() => reject(new Error('the worker kept the 1 GB reply open')),
					RECORDED_WITHIN_MS,
				);
			}),
		]).finally(() => clearTimeout(giveUp));
		expect(delivery).toMatchObject({ state: 'delivered', last_status: 200 });
		// Socket buffers on both sides hold a few MB at most; reading the whole reply would need 1 GB.
		expect(written).toBeLessThan(16 * 1024 * 1024);
	});
});

describe('addresses refused when the webhook is set', () => {
	const refused = [
		['metadata', 'http://169.254.169.254/latest/meta-data/'],
		['metadata, decimal', 'http://2852039166/'],
		['metadata, octal and hex parts', 'http://0251.0xfe.0251.0376/'],
		['metadata, IPv4-mapped IPv6', 'http://[::ffff:169.254.169.254]/'],
		['metadata, IPv4-mapped IPv6 in hex', 'http://[::ffff:a9fe:a9fe]/'],
		['metadata, NAT64', 'http://[64:ff9b::a9fe:a9fe]/'],
		['link-local IPv6', 'http://[fe80::1]/'],
		['AWS IPv6 metadata', 'http://[fd00:ec2::254]/'],
		['unspecified', 'http://0.0.0.0/'],
		// Notations the hand-written table missed.
		['metadata, IPv4-mapped in a zero-prefixed form', 'http://[::ffff:0:a9fe:a9fe]/'],
		['metadata, local-use NAT64 (RFC 8215)', 'http://[64:ff9b:1::a9fe:a9fe]/'],
		['metadata, 6to4', 'http://[2002:a9fe:a9fe::1]/'],
		['IETF protocol assignments (192.0.0.0/24)', 'http://192.0.0.192/'],
		['site-local IPv6', 'http://[fec0::1]/'],
		['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
		['IPv4-compatible IPv6', 'http://[::a9fe:a9fe]/'],
		['documentation range', 'http://192.0.2.10/'],
		['benchmarking range', 'http://198.18.0.1/'],
		['broadcast', 'http://255.255.255.255/'],
		['multicast IPv6', 'http://[ff02::1]/'],
		['reserved 240/4', 'http://240.0.0.1/'],
	];
	it.each(refused)('%s: 400 naming contact_form_webhook_url', async (_name, url) => {
		const t = await createTenant(h);
		const res = await t.api.post('/api/settings', { contact_form_webhook_url: url });
		const body = expectError(res, 400, 'validation_failed');
		expect(detailFields(body)).toEqual(['contact_form_webhook_url']);
		expect((await t.api.get('/api/settings')).data.settings.contact_form_webhook_url).toBeNull();
	});

	it('the server itself, by its address, by localhost and by its own public form: 400', async () => {
		const t = await createTenant(h);
		const port = h.server.port;
		for (const url of [
			`${h.url}/forms/${t.id}/contact`,
			`http://localhost:${port}/x`,
			`http://[::ffff:127.0.0.1]:${port}/`,
			`http://127.0.0.2:${port}/`,
		]) {
			const res = await t.api.post('/api/settings', { contact_form_webhook_url: url });
			expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual([
				'contact_form_webhook_url',
			]);
		}
	});

	const loopbackAndPrivate: [string, 'loopback' | 'private'][] = [
		['http://127.0.0.1:9/hook', 'loopback'],
		['http://localhost:9/hook', 'loopback'],
		['http://[::1]:9/', 'loopback'],
		['http://[::ffff:127.0.0.1]:9/', 'loopback'],
		['http://10.1.2.3/hook', 'private'],
		['http://192.168.1.1:5678/webhook/x', 'private'],
		['http://172.16.0.1/', 'private'],
		['http://100.64.0.1/', 'private'],
		['http://[fd12:3456::1]/', 'private'],
		['http://[::ffff:10.0.0.1]/', 'private'],
	];

	it('loopback and private addresses are refused by default: 400 naming the field and the flag that opens them', async () => {
		const strict = await start({ webhookAllow: undefined });
		const t = await createTenant(strict);
		for (const [url, name] of loopbackAndPrivate) {
			const res = await t.api.post('/api/settings', { contact_form_webhook_url: url });
			const body = expectError(res, 400, 'validation_failed');
			expect(detailFields(body)).toEqual(['contact_form_webhook_url']);
			expect(body.details[0].problem).toContain(`--webhook-allow ${name}`);
			expect(body.message).toContain('contact_form_webhook_url');
		}
		expect((await t.api.get('/api/settings')).data.settings.contact_form_webhook_url).toBeNull();
	});

	it('--webhook-allow loopback,private opens them; public addresses are accepted either way', async () => {
		const open = await start({ webhookAllow: 'loopback,private' });
		const t = await createTenant(open);
		for (const [url] of loopbackAndPrivate) {
			const res = await t.api.post('/api/settings', { contact_form_webhook_url: url });
			expect(res.status).toBe(200);
			expect(res.data.settings.contact_form_webhook_url).toBe(url);
		}
		// Saved and read back only: no form is submitted, so nothing is sent to these addresses.
		const strict = await start({ webhookAllow: undefined });
		const u = await createTenant(strict);
		for (const url of ['http://93.184.216.34/hook', 'https://[2606:4700::6810:84e5]/hook']) {
			expect((await u.api.post('/api/settings', { contact_form_webhook_url: url })).status).toBe(
				200,
			);
			expect((await u.api.get('/api/settings')).data.settings.contact_form_webhook_url).toBe(url);
		}
	});

	it('a special-purpose range opens only with a CIDR naming it, never with "private"', async () => {
		const wide = await start({ webhookAllow: 'loopback,private' });
		const t = await createTenant(wide);
		let res = await t.api.post('/api/settings', {
			contact_form_webhook_url: 'http://192.0.0.192/',
		});
		expect(expectError(res, 400, 'validation_failed').details[0].problem).toMatch(
			/--webhook-allow with a CIDR/,
		);
		const cidr = await start({ webhookAllow: '192.0.0.0/24' });
		const u = await createTenant(cidr);
		res = await u.api.post('/api/settings', { contact_form_webhook_url: 'http://192.0.0.192/' });
		expect(res.status).toBe(200);
		// Link-local and metadata stay refused whatever the list says.
		const all = await start({ webhookAllow: '0.0.0.0/0,::/0,loopback,private' });
		const v = await createTenant(all);
		for (const url of [
			'http://169.254.169.254/',
			'http://100.100.100.200/',
			'http://[fd00:ec2::254]/',
		]) {
			res = await v.api.post('/api/settings', { contact_form_webhook_url: url });
			expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual([
				'contact_form_webhook_url',
			]);
		}
	});
});

describe('addresses refused at delivery time, after DNS resolution', () => {
	it('a stored URL whose name resolves to the server itself fails without a request', async () => {
		const t = await createTenant(h);
		storeWebhook(h, t, `http://localhost:${h.server.port}/forms/${t.id}/contact`);
		const submissionId = await submitForm(h, t.id, { message: 'loop?' });
		const delivery = await settled(t, submissionId);
		expect(delivery.state).toBe('failed');
		expect(delivery.last_status).toBeNull();
		expect(delivery.last_error).toMatch(/refused.*this server itself/);
		expect((await deliveries(t)).length).toBe(1);
	});

	it('a stored metadata URL fails without a request', async () => {
		const t = await createTenant(h);
		storeWebhook(h, t, 'http://[::ffff:a9fe:a9fe]/latest');
		const delivery = await settled(t, await submitForm(h, t.id, {}));
		expect(delivery).toMatchObject({ state: 'failed', last_status: null });
		expect(delivery.last_error).toMatch(/refused: 169\.254\.169\.254 \(a link-local address/);
	});

	it('without --webhook-allow, a stored name resolving to loopback fails after DNS without a request', async () => {
		const strict = await start({ webhookAllow: undefined });
		const receiver = await new Receiver().start();
		closers.push(() => receiver.stop());
		const t = await createTenant(strict);
		storeWebhook(strict, t, `http://localhost:${receiver.port}/hook`);
		const delivery = await settled(t, await submitForm(strict, t.id, {}));
		expect(delivery).toMatchObject({ state: 'failed', last_status: null });
		expect(delivery.last_error).toMatch(/localhost resolves to .*--webhook-allow loopback/);
		expect(receiver.requests).toHaveLength(0);
	});
});

describe('--webhook-deny and --webhook-allow', () => {
	it('deny loopback: refused when set, and a stored one fails after resolving localhost', async () => {
		const strict = await start({ webhookDeny: 'loopback' });
		const receiver = await new Receiver().start();
		closers.push(() => receiver.stop());
		const t = await createTenant(strict);
		const res = await t.api.post('/api/settings', {
			contact_form_webhook_url: `${receiver.url}/hook`,
		});
		expect(expectError(res, 400, 'validation_failed').details[0].problem).toMatch(/--webhook-deny/);
		storeWebhook(strict, t, `http://localhost:${receiver.port}/hook`);
		const delivery = await settled(t, await submitForm(strict, t.id, {}));
		expect(delivery).toMatchObject({ state: 'failed', last_status: null });
		expect(delivery.last_error).toMatch(
			/localhost resolves to 127\.0\.0\.1 \(in the ranges refused by --webhook-deny\)/,
		);
		expect(receiver.requests).toHaveLength(0);
	});

	it('allow 10.0.0.0/8 opens only that range of the refused ones', async () => {
		const narrow = await start({ webhookAllow: '10.0.0.0/8' });
		const t = await createTenant(narrow);
		expect(
			(await t.api.post('/api/settings', { contact_form_webhook_url: 'http://10.9.8.7/hook' }))
				.status,
		).toBe(200);
		let res = await t.api.post('/api/settings', {
			contact_form_webhook_url: 'http://127.0.0.1:9/hook',
		});
		expect(expectError(res, 400, 'validation_failed').details[0].problem).toMatch(
			/--webhook-allow loopback/,
		);
		res = await t.api.post('/api/settings', { contact_form_webhook_url: 'http://192.168.0.9/' });
		expect(expectError(res, 400, 'validation_failed').details[0].problem).toMatch(
			/--webhook-allow private/,
		);
	});

	it('bad lists are configuration errors naming the entry', () => {
		expect(() => resolveConfig({ webhookDeny: '10.0.0.0/33' })).toThrow(
			/webhookDeny: "10\.0\.0\.0\/33"/,
		);
		expect(() => resolveConfig({ webhookAllow: 'example.com' })).toThrow(
			/webhookAllow: "example\.com"/,
		);
		expect(() => parseCidrList(' , ')).toThrow(/empty/);
		const list = parseCidrList('loopback, private, 2001:db8::/32');
		expect(list.covers(ipaddr.parse('192.168.3.4'))).toBe(true);
		expect(list.covers(ipaddr.parse('2001:db8::5'))).toBe(true);
		expect(list.covers(ipaddr.parse('8.8.8.8'))).toBe(false);
		expect(() => parseCidrList('0251.0xfe.0251.0376')).toThrow(/is not an address/);
	});

	it('IPv4-mapped addresses are read as their IPv4 address', () => {
		expect(canonicalAddress('[::ffff:a9fe:a9fe]')).toBe('169.254.169.254');
		expect(canonicalAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
		// NAT64 stays IPv6: refused as a special-purpose range, whatever it embeds.
		expect(canonicalAddress('64:ff9b::10.0.0.1')).toBe('64:ff9b::a00:1');
		expect(canonicalAddress('::1')).toBe('::1');
		expect(canonicalAddress('2001:db8::1')).toBe('2001:db8::1');
	});
});

describe('delivery loops', () => {
	it('every delivery is marked; a relay that forwards it into a form gets 403 and the loop ends at once', async () => {
		const t = await createTenant(h);
		let relayed = 0;
		const relay = await listen((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', async () => {
				relayed += 1;
				const headers = Object.fromEntries(
					Object.entries(req.headers).filter(
						([name]) => !['host', 'content-length', 'connection'].includes(name),
					),
				) as Record<string, string>;
				const answer = await fetch(`${h.url}/forms/${t.id}/contact`, {
					method: 'POST',
					headers,
					body: Buffer.concat(chunks),
				});
				res.writeHead(answer.status, { 'content-type': 'application/json' });
				res.end(await answer.text());
			});
		});
		await setWebhook(t, `${relay.url}/relay`);
		const submissionId = await submitForm(h, t.id, { message: 'once' });
		const delivery = await settled(t, submissionId);
		expect(delivery).toMatchObject({ state: 'failed', last_status: 403 });
		await sleep(300);
		expect(relayed).toBe(1);
		expect(await deliveries(t)).toHaveLength(1);
	});

	it('a submission carrying the delivery mark is refused and stores nothing', async () => {
		const t = await createTenant(h);
		// With a webhook set, an accepted submission would be stored: "nothing stored" then means something.
		await setWebhook(t, `http://127.0.0.1:${await closedPort()}/hook`);
		const res = await h.anon.post(
			`/forms/${t.id}/contact`,
			{ a: 1 },
			{ headers: { 'X-Site-Delivery-Id': 'anything' } },
		);
		expectError(res, 403, 'forbidden');
		const tenant = h.server.app.site.store.tenants.findById(t.id)!;
		const count = h.server.app.site.store.db
			.prepare('SELECT COUNT(*) AS n FROM submissions WHERE tenant_pk = ?')
			.get(tenant.pk) as { n: number };
		expect(count.n).toBe(0);
	});
});

describe('webhook secrets and headers', () => {
	it("last_error never repeats the URL's password; the URL's user and password go out as Basic authentication", async () => {
		const t = await createTenant(h);
		const password = 'pw-Sup3rSecret-%21x';
		await setWebhook(t, `http://hook-user:${password}@127.0.0.1:${await closedPort()}/hook`);
		const failed = await settled(t, await submitForm(h, t.id, {}));
		expect(failed.state).toBe('failed');
		expect(failed.last_error).toBe(UNREACHABLE);
		for (const form of [password, decodeURIComponent(password), 'Sup3rSecret'])
			expect(JSON.stringify(failed)).not.toContain(form);

		const receiver = await new Receiver().start();
		closers.push(() => receiver.stop());
		await setWebhook(t, `http://hook-user:${password}@127.0.0.1:${receiver.port}/hook`);
		const sid = await submitForm(h, t.id, {});
		await settled(t, sid);
		const expected = `Basic ${Buffer.from(`hook-user:${decodeURIComponent(password)}`).toString('base64')}`;
		expect(receiver.for(sid)[0].headers.authorization).toBe(expected);
	});

	it.each([
		'Keep-Alive',
		'TE',
		'Expect',
		'Upgrade',
		'User-Agent',
		'x-site-delivery-id',
		'Content-Type',
	])('%s, which the worker can never send as set: 400 naming it', async (name) => {
		const t = await createTenant(h);
		const res = await t.api.post('/api/settings', {
			contact_form_webhook_headers: { [name]: 'x' },
		});
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual([
			`contact_form_webhook_headers.${name}`,
		]);
	});

	it('values Node cannot send (beyond Latin-1, control characters) are refused; Latin-1 is kept', async () => {
		const t = await createTenant(h);
		for (const value of ['10 €', 'a\u0001b', 'tab\tthen\u007f', '\u202eevil']) {
			const res = await t.api.post('/api/settings', {
				contact_form_webhook_headers: { 'X-Secret': value },
			});
			expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual([
				'contact_form_webhook_headers.X-Secret',
			]);
		}
		expect(
			(
				await t.api.post('/api/settings', {
					contact_form_webhook_headers: { 'X-Secret': 'café\tau lait' },
				})
			).status,
		).toBe(200);
	});

	it('two Authorization headers are refused: names differing in case, or one beside a user:password URL', async () => {
		const t = await createTenant(h);
		let res = await t.api.post('/api/settings', {
			contact_form_webhook_headers: { Authorization: 'Bearer a', authorization: 'Bearer b' },
		});
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual([
			'contact_form_webhook_headers.authorization',
		]);
		res = await t.api.post('/api/settings', {
			contact_form_webhook_url: 'http://u:p@127.0.0.1:9/',
			contact_form_webhook_headers: { Authorization: 'Bearer a' },
		});
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual([
			'contact_form_webhook_headers.Authorization',
		]);
		// Also when the two arrive in separate requests.
		expect(
			(
				await t.api.post('/api/settings', {
					contact_form_webhook_headers: { Authorization: 'Bearer a' },
				})
			).status,
		).toBe(200);
		res = await t.api.post('/api/settings', {
			contact_form_webhook_url: 'http://u:p@127.0.0.1:9/',
		});
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual([
			'contact_form_webhook_headers.Authorization',
		]);
		expect((await t.api.get('/api/settings')).data.settings.contact_form_webhook_url).toBeNull();
	});
});

describe('the recorded outcome of an unanswered attempt is coarse', () => {
	it('a closed port and a receiver that never answers leave the same last_error', async () => {
		const quick = await start({ deliveryMaxAttempts: 1, deliveryTimeoutMs: 300 });
		const silent = await listen(() => undefined);
		const t = await createTenant(quick);
		await setWebhook(t, `http://127.0.0.1:${await closedPort()}/hook`);
		const refused = await settled(t, await submitForm(quick, t.id, {}));
		await setWebhook(t, `${silent.url}/hook`);
		const timedOut = await settled(t, await submitForm(quick, t.id, {}));
		for (const delivery of [refused, timedOut]) {
			expect(delivery).toMatchObject({
				state: 'failed',
				last_status: null,
				last_error: UNREACHABLE,
			});
			expect(delivery.last_error).not.toMatch(/ECONN|timed out|\d{2,5}/i);
		}
	});
});
