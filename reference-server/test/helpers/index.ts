/**
 * Shared helpers for the reference server's tests: every test file starts its own server on an
 * ephemeral port with its own temporary data directory, and talks to it over real HTTP.
 */
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { startServer } from '../../src';

export type RunningServer = Awaited<ReturnType<typeof startServer>>;
export type ServerOptions = NonNullable<Parameters<typeof startServer>[0]>;

// ---------------------------------------------------------------------------------------------
// Secrets: every token a test sees is remembered, so that error bodies can be checked for echoes.
// ---------------------------------------------------------------------------------------------

const secrets = new Set<string>();

export function rememberSecret(secret: string): string {
	if (secret) secrets.add(secret);
	return secret;
}

export function randomToken(prefix = 'tok'): string {
	return rememberSecret(`${prefix}-${randomBytes(24).toString('hex')}`);
}

let idCounter = 0;
/** A tenant id (or other name) unique within the test file: lowercase, starts with a letter. */
export function uniqueId(prefix = 't'): string {
	idCounter += 1;
	return `${prefix}-${idCounter}-${randomBytes(3).toString('hex')}`;
}

// ---------------------------------------------------------------------------------------------
// Data directories
// ---------------------------------------------------------------------------------------------

const createdDirs: string[] = [];

export function makeDataDir(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-ref-test-'));
	createdDirs.push(dir);
	return dir;
}

export function removeDataDirs(): void {
	while (createdDirs.length > 0) {
		const dir = createdDirs.pop()!;
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/** Every regular file below dir (absolute paths); [] when dir does not exist. */
export function listFiles(dir: string): string[] {
	if (!fs.existsSync(dir)) return [];
	const out: string[] = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...listFiles(full));
		else if (entry.isFile()) out.push(full);
	}
	return out;
}

/** Files below dir whose content is exactly these bytes. */
export function filesWithContent(dir: string, bytes: Buffer): string[] {
	return listFiles(dir).filter((file) => {
		const stat = fs.statSync(file);
		return stat.size === bytes.length && fs.readFileSync(file).equals(bytes);
	});
}

/** Files below dir that are at least minBytes long and are not the database (sqlite, wal, shm). */
export function largeNonDbFiles(dir: string, minBytes: number): string[] {
	return listFiles(dir).filter(
		(file) =>
			!/\.(db|sqlite|sqlite3)(-wal|-shm|-journal)?$/.test(file) &&
			fs.statSync(file).size >= minBytes,
	);
}

// ---------------------------------------------------------------------------------------------
// HTTP clients
// ---------------------------------------------------------------------------------------------

/** What every test client shares: no throw on a status, no proxy, no redirect followed. */
const clientDefaults = (baseURL: string) =>
	({ baseURL, validateStatus: () => true, proxy: false, maxRedirects: 0, timeout: 15000 }) as const;

/** An axios instance that never throws on a status and never uses a proxy. */
export function client(baseURL: string, token?: string): AxiosInstance {
	if (token) rememberSecret(token);
	return axios.create({
		...clientDefaults(baseURL),
		headers: token ? { Authorization: `Bearer ${token}` } : {},
	});
}

/**
 * A client whose requests leave from `localAddress`, another loopback address (127.0.0.2 and up:
 * Linux answers the whole 127/8), so the server sees another client: budgets per address.
 */
export function clientFrom(baseURL: string, localAddress: string): AxiosInstance {
	return axios.create({
		...clientDefaults(baseURL),
		httpAgent: new http.Agent({ localAddress } as http.AgentOptions),
	});
}

export interface RawResponse {
	status: number;
	headers: http.IncomingHttpHeaders;
	text: string;
	json: any;
}

/** The body parsed as JSON; undefined when it is not JSON (an error page, an empty body). */
function parseJsonOrUndefined(text: string): any {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/** A request with full control over headers and bytes (axios would re-encode a broken JSON string). */
export function rawRequest(
	url: string,
	options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
	return new Promise((resolve, reject) => {
		const body = options.body === undefined ? undefined : Buffer.from(options.body);
		const headers: Record<string, string | number> = { ...(options.headers ?? {}) };
		if (body) headers['content-length'] = body.length;
		const req = http.request(url, { method: options.method ?? 'POST', headers }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				resolve({
					status: res.statusCode ?? 0,
					headers: res.headers,
					text,
					json: parseJsonOrUndefined(text),
				});
			});
			res.on('error', reject);
		});
		req.on('error', reject);
		if (body) req.write(body);
		req.end();
	});
}

// ---------------------------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------------------------

type AnyResponse = Pick<AxiosResponse, 'status' | 'data' | 'headers'> | RawResponse;

function bodyOf(res: AnyResponse): any {
	return 'json' in res ? res.json : res.data;
}

/** Asserts the contract's error shape, status and code, and that no known token is echoed. */
export function expectError(res: AnyResponse, status: number, code: string): any {
	const body = bodyOf(res);
	const where = `response ${res.status} ${JSON.stringify(body)}`;
	expect({ where, status: res.status }).toEqual({ where, status });
	expect(body).toEqual(expect.objectContaining({ error: code, message: expect.any(String) }));
	for (const key of Object.keys(body)) expect(['error', 'message', 'details']).toContain(key);
	expect(body.message.length).toBeGreaterThan(0);
	expectNoSecrets(body);
	return body;
}

/** Asserts nothing in this value contains any token the test has seen. */
export function expectNoSecrets(value: unknown): void {
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	for (const secret of secrets) expect(text.includes(secret)).toBe(false);
}

/** The fields named in a validation_failed answer. */
export function detailFields(body: any): string[] {
	expect(Array.isArray(body.details)).toBe(true);
	for (const d of body.details) {
		expect(d).toEqual(
			expect.objectContaining({ field: expect.any(String), problem: expect.any(String) }),
		);
	}
	return body.details.map((d: any) => d.field);
}

export function expectOk(res: Pick<AxiosResponse, 'status' | 'data'>, status = 200): any {
	if (res.status !== status) {
		throw new Error(`expected status ${status}, got ${res.status}: ${JSON.stringify(res.data)}`);
	}
	return res.data;
}

// ---------------------------------------------------------------------------------------------
// Waiting
// ---------------------------------------------------------------------------------------------

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls predicate until it returns a truthy value (returned), or throws after timeoutMs. */
export async function waitFor<T>(
	predicate: () => T | Promise<T>,
	timeoutMs = 5000,
	what = 'condition',
	intervalMs = 20,
): Promise<NonNullable<T>> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await predicate();
			if (value) return value as NonNullable<T>;
		} catch (error) {
			lastError = error;
		}
		if (Date.now() > deadline) {
			throw new Error(
				`waitFor(${what}) timed out after ${timeoutMs} ms${lastError ? `; last error: ${String(lastError)}` : ''}`,
			);
		}
		await sleep(intervalMs);
	}
}

// ---------------------------------------------------------------------------------------------
// Server harness
// ---------------------------------------------------------------------------------------------

export interface Harness {
	server: RunningServer;
	url: string;
	dataDir: string;
	adminToken: string;
	options: ServerOptions;
	/** Client with the admin token. */
	admin: AxiosInstance;
	/** Client without a token. */
	anon: AxiosInstance;
}

const running = new Set<RunningServer>();

/** Starts a server on 127.0.0.1:0; a fresh temp data dir unless one is given (or memory is set). */
export async function start(options: Partial<ServerOptions> = {}): Promise<Harness> {
	const dataDir = (options as any).dataDir ?? makeDataDir();
	const adminToken = (options as any).adminToken ?? randomToken('admin');
	rememberSecret(adminToken);
	const full = {
		host: '127.0.0.1',
		port: 0,
		logger: false,
		deliveryRetryBaseMs: 20,
		// Tests submit many forms from one address; the rate limits have their own tests.
		formRatePerAddress: 0,
		formRatePerTenant: 0,
		// Receivers in tests listen on loopback, which webhooks may reach only when allowed.
		webhookAllow: 'loopback',
		...options,
		dataDir,
		adminToken,
	} as ServerOptions;
	const server = await startServer(full);
	running.add(server);
	const url = server.url;
	return {
		server,
		url,
		dataDir,
		adminToken,
		options: full,
		admin: client(url, adminToken),
		anon: client(url),
	};
}

export async function stop(h: Harness | undefined): Promise<void> {
	if (!h || !running.has(h.server)) return;
	running.delete(h.server);
	await h.server.close();
}

/** Closes the server and starts another on the same data directory and admin token. */
export async function restart(h: Harness, options: Partial<ServerOptions> = {}): Promise<Harness> {
	await stop(h);
	return start({ ...h.options, port: 0, ...options, dataDir: h.dataDir, adminToken: h.adminToken });
}

export async function stopAll(): Promise<void> {
	const all = [...running];
	running.clear();
	await Promise.all(all.map((s) => s.close()));
}

/**
 * One server for the whole test file: started before its tests (handed to `onStarted`), then every
 * server stopped and every data directory removed after them.
 */
export function useServer(
	onStarted: (h: Harness) => void,
	options: Partial<ServerOptions> = {},
): void {
	beforeAll(async () => {
		onStarted(await start(options));
	});
	afterAll(async () => {
		await stopAll();
		removeDataDirs();
	});
}

export interface Tenant {
	id: string;
	token: string;
	api: AxiosInstance;
}

/**
 * Issues a token for the tenant (throws on a non-200). Takes any site with an admin client: the
 * root tests' harness (test/harness/reference-server.ts) uses it too.
 */
export async function issueToken(
	h: Pick<Harness, 'admin'>,
	id: string,
	extra: Record<string, unknown> = {},
): Promise<string> {
	const res = await h.admin.post('/api/tenant/token', { id, ...extra });
	const body = expectOk(res);
	return rememberSecret(body.token);
}

/** Creates a tenant and a token for it (`tokenOptions`: e.g. `expires_in`). */
export async function createTenant(
	h: Pick<Harness, 'admin' | 'url'>,
	id = uniqueId('tenant'),
	fqdn?: string,
	tokenOptions: Record<string, unknown> = {},
): Promise<Tenant> {
	const res = await h.admin.post('/api/tenant', fqdn ? { id, fqdn } : { id });
	expectOk(res);
	const token = await issueToken(h, id, tokenOptions);
	return { id, token, api: client(h.url, token) };
}

export function pageBody(
	url: string,
	extra: Record<string, unknown> = {},
): Record<string, unknown> {
	return {
		name: `Page ${url}`,
		url,
		locale: 'en',
		meta_title: `Title ${url}`,
		meta_description: `Description ${url}`,
		draft: false,
		...extra,
	};
}

export async function createPage(
	t: Tenant,
	url: string,
	extra: Record<string, unknown> = {},
): Promise<any> {
	const res = await t.api.post('/api/page', pageBody(url, extra));
	return expectOk(res, 201).page;
}

/** Every page of the tenant, following pagination with per_page 100. */
export async function allPages(
	t: Tenant,
	query: Record<string, string | number | boolean> = {},
): Promise<any[]> {
	const out: any[] = [];
	for (let page = 1; ; page++) {
		const res = await t.api.get('/api/pages', { params: { per_page: 100, ...query, page } });
		const body = expectOk(res);
		out.push(...body.data);
		if (page >= body.meta.last_page || body.data.length === 0) return out;
	}
}

/** The asset URL as the server returned it, made absolute against the server's URL. */
export function absolute(h: Harness, assetUrl: string): string {
	return new URL(assetUrl, h.url + '/').toString();
}

// ---------------------------------------------------------------------------------------------
// Webhook receiver and closed ports
// ---------------------------------------------------------------------------------------------

export interface ReceivedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	text: string;
	json: any;
	status: number;
	at: number;
}

/** A local webhook receiver: records every request, answers planned statuses then defaultStatus. */
export class Receiver {
	readonly requests: ReceivedRequest[] = [];
	defaultStatus = 200;
	private planned: number[] = [];
	private server: http.Server | undefined;
	port = 0;

	/** The next n requests answer these statuses, in order. */
	plan(...statuses: number[]): this {
		this.planned.push(...statuses);
		return this;
	}

	get url(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	async start(port = this.port): Promise<this> {
		const server = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				const json = parseJsonOrUndefined(text);
				const status = this.planned.length > 0 ? this.planned.shift()! : this.defaultStatus;
				this.requests.push({
					method: req.method ?? '',
					url: req.url ?? '',
					headers: req.headers,
					text,
					json,
					status,
					at: Date.now(),
				});
				res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
				res.end(JSON.stringify({ ok: status < 300 }));
			});
		});
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(port, '127.0.0.1', () => resolve());
		});
		this.server = server;
		this.port = (server.address() as net.AddressInfo).port;
		return this;
	}

	async stop(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (!server) return;
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}

	/** Requests that carried this submission id. */
	for(submissionId: string): ReceivedRequest[] {
		return this.requests.filter((r) => r.json?.submission_id === submissionId);
	}
}

/** A TCP port on 127.0.0.1 that nothing listens on (it was just bound and released). */
export async function closedPort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const port = (server.address() as net.AddressInfo).port;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

// ---------------------------------------------------------------------------------------------
// Contact form helpers
// ---------------------------------------------------------------------------------------------

export async function submitForm(
	h: Harness,
	tenantId: string,
	fields: Record<string, unknown>,
): Promise<string> {
	const res = await h.anon.post(`/forms/${tenantId}/contact`, fields);
	const body = expectOk(res, 202);
	expect(typeof body.submission_id).toBe('string');
	return body.submission_id;
}

export async function deliveries(t: Tenant): Promise<any[]> {
	const res = await t.api.get('/api/contact-form/deliveries');
	return expectOk(res).data;
}

export async function deliveryOf(t: Tenant, submissionId: string): Promise<any | undefined> {
	return (await deliveries(t)).find((d) => d.submission_id === submissionId);
}

export async function setWebhook(
	t: Tenant,
	url: string,
	headers?: Record<string, string>,
): Promise<void> {
	const body: Record<string, unknown> = { contact_form_webhook_url: url };
	if (headers) body.contact_form_webhook_headers = headers;
	expectOk(await t.api.post('/api/settings', body));
}
