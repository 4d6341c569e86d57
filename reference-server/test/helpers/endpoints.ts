/**
 * Every endpoint of the reference server, with a well-formed request for each, for the security matrix
 * and the bad-input fuzzing. `secured()` is checked against the OpenAPI document, so an endpoint added
 * to the server without being added here fails the tests that use this list.
 */
import FormData from 'form-data';

import { rawRequest, type Harness, type RawResponse } from './index';

export type Surface = 'central' | 'tenant' | 'public';

export interface Endpoint {
	method: 'GET' | 'POST' | 'PUT' | 'DELETE';
	/** As the OpenAPI document writes it (`{param}`). */
	path: string;
	surface: Surface;
	/** multipart/form-data (the upload) instead of JSON. */
	multipart?: boolean;
	/** A well-formed body (JSON endpoints) for a harmless call. */
	body?: Record<string, unknown>;
}

export const ENDPOINTS: Endpoint[] = [
	// central
	{ method: 'GET', path: '/api/tenants', surface: 'central' },
	{ method: 'POST', path: '/api/tenant', surface: 'central', body: { id: 'probe-new' } },
	{
		method: 'PUT',
		path: '/api/tenant',
		surface: 'central',
		body: { old_id: 'probe-old', id: 'probe-renamed' },
	},
	{ method: 'DELETE', path: '/api/tenant', surface: 'central', body: { id: 'probe-old' } },
	{ method: 'POST', path: '/api/tenant/token', surface: 'central', body: { id: 'probe-old' } },
	// tenant
	{ method: 'GET', path: '/api/pages', surface: 'tenant' },
	{
		method: 'POST',
		path: '/api/page',
		surface: 'tenant',
		body: { name: 'Probe', url: '/probe', locale: 'en' },
	},
	{ method: 'DELETE', path: '/api/page', surface: 'tenant', body: { url: '/victim' } },
	{
		method: 'PUT',
		path: '/api/content',
		surface: 'tenant',
		body: { url: '/victim', templates: [{ type: 'text', text: 'defaced' }] },
	},
	{ method: 'POST', path: '/api/asset', surface: 'tenant', multipart: true },
	{ method: 'GET', path: '/api/settings', surface: 'tenant' },
	{
		method: 'POST',
		path: '/api/settings',
		surface: 'tenant',
		body: { google_code: 'G-PROBE', contact_form_webhook_url: 'http://127.0.0.1:9/steal' },
	},
	{ method: 'POST', path: '/api/sitemap', surface: 'tenant', body: {} },
	{ method: 'GET', path: '/api/notifications', surface: 'tenant' },
	{
		method: 'POST',
		path: '/api/notifications',
		surface: 'tenant',
		body: { id: 'probe', message: 'probe', status: 'info' },
	},
	{ method: 'GET', path: '/api/variables', surface: 'tenant' },
	{
		method: 'PUT',
		path: '/api/variables',
		surface: 'tenant',
		body: { key: 'secret-key', value: 'overwritten' },
	},
	{ method: 'DELETE', path: '/api/variables', surface: 'tenant', body: { key: 'secret-key' } },
	{ method: 'GET', path: '/api/contact-form/deliveries', surface: 'tenant' },
	{
		method: 'POST',
		path: '/api/contact-form/claims',
		surface: 'tenant',
		body: { consumer: 'probe', key: '"victim"' },
	},
	{
		method: 'DELETE',
		path: '/api/contact-form/claims',
		surface: 'tenant',
		body: { consumer: 'probe', key: '"victim"' },
	},
	{
		method: 'POST',
		path: '/api/contact-form/test-webhooks',
		surface: 'tenant',
		body: { url: 'http://127.0.0.1:9/probe', headers: {} },
	},
	{ method: 'GET', path: '/api/contact-form/test-webhooks', surface: 'tenant' },
	{
		method: 'DELETE',
		path: '/api/contact-form/test-webhooks',
		surface: 'tenant',
		body: { url: 'http://127.0.0.1:9/probe' },
	},
	// public
	{ method: 'GET', path: '/health', surface: 'public' },
	{ method: 'GET', path: '/openapi.json', surface: 'public' },
	{ method: 'POST', path: '/forms/{tenantId}/contact', surface: 'public', body: { name: 'Probe' } },
	// Public, but refused without the tenant's webhook secret (tested in contact-form-claims.test.ts).
	{
		method: 'POST',
		path: '/forms/{tenantId}/claims',
		surface: 'public',
		body: { consumer: 'probe', key: '"victim"' },
	},
	{ method: 'GET', path: '/assets/{assetId}/{fileName}', surface: 'public' },
];

export const secured = () => ENDPOINTS.filter((e) => e.surface !== 'public');

/** Every operation of the OpenAPI document as `METHOD path` with its security scheme names. */
export async function documentedOperations(h: Harness): Promise<Map<string, string[]>> {
	const doc = (await h.anon.get('/openapi.json')).data as {
		paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
	};
	const out = new Map<string, string[]>();
	for (const [path, operations] of Object.entries(doc.paths)) {
		for (const [method, operation] of Object.entries(operations)) {
			const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
			out.set(`${method.toUpperCase()} ${path}`, schemes);
		}
	}
	return out;
}

export interface SendOptions {
	/** Full Authorization header value; omitted when undefined. */
	authorization?: string;
	body?: string | Buffer;
	contentType?: string;
	headers?: Record<string, string>;
	query?: string;
	/** Values for `{param}` segments. */
	params?: Record<string, string>;
}

/** The endpoint's path with its parameters filled in (encoded). */
export function concretePath(endpoint: Endpoint, params: Record<string, string> = {}): string {
	return endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) =>
		encodeURIComponent(params[name] ?? `x-${name}`),
	);
}

/** A multipart body with a `file` part (and a `name` part). */
export function multipartBody(
	content = Buffer.from('probe file'),
	fileName = 'probe.txt',
): { body: Buffer; contentType: string } {
	const form = new FormData();
	form.append('name', 'probe');
	form.append('file', content, { filename: fileName, contentType: 'text/plain' });
	return { body: form.getBuffer(), contentType: form.getHeaders()['content-type'] as string };
}

/** Sends one request with exactly these bytes and headers (a well-formed body by default). */
export async function sendTo(
	h: Harness,
	endpoint: Endpoint,
	options: SendOptions = {},
): Promise<RawResponse> {
	const headers: Record<string, string> = { ...(options.headers ?? {}) };
	if (options.authorization !== undefined) headers.authorization = options.authorization;
	let body = options.body;
	let contentType = options.contentType;
	if (body === undefined && endpoint.method !== 'GET') {
		if (endpoint.multipart) {
			const multipart = multipartBody();
			body = multipart.body;
			contentType ??= multipart.contentType;
		} else {
			body = JSON.stringify(endpoint.body ?? {});
			contentType ??= 'application/json';
		}
	}
	if (contentType !== undefined) headers['content-type'] = contentType;
	const query = options.query ? `?${options.query}` : '';
	return await rawRequest(`${h.url}${concretePath(endpoint, options.params)}${query}`, {
		method: endpoint.method,
		headers,
		body,
	});
}
