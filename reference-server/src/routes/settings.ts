import type { FastifyInstance } from 'fastify';
import { validationFailed } from '../plugins/errors';
import type { Settings } from '../db/settings';
import { tenantOf } from '../context';
import { errorResponses, flagSchema, tenantSecurity } from '../schemas/common';

interface SettingsBody {
	google_code?: string | null;
	noindex?: boolean | 0 | 1;
	statistics_iframe?: string | null;
	contact_form_webhook_url?: string | null;
	contact_form_webhook_headers?: Record<string, string> | null;
}

/** RFC 9110 token characters; values exclude CR, LF and NUL so no header can be smuggled. */
const HEADER_NAME = '^[!#$%&\'*+.^_`|~0-9A-Za-z-]{1,100}$';
/** Set by the delivery worker itself. */
const RESERVED_HEADERS = ['content-type', 'content-length', 'host', 'transfer-encoding', 'connection', 'user-agent', 'x-site-delivery-id'];
/** ajv patterns have no case-insensitive flag: `host` becomes `[hH][oO][sS][tT]`. */
const RESERVED_HEADER_PATTERN = `^(?:${RESERVED_HEADERS.map((name) => name.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`)).join('|')})$`;

const settingsSchema = {
	type: 'object',
	required: ['google_code', 'noindex', 'statistics_iframe', 'contact_form_webhook_url', 'contact_form_webhook_headers'],
	properties: {
		google_code: { type: ['string', 'null'] },
		noindex: { type: 'integer', enum: [0, 1] },
		statistics_iframe: { type: ['string', 'null'] },
		contact_form_webhook_url: { type: ['string', 'null'], 'x-extension': true },
		contact_form_webhook_headers: { type: ['object', 'null'], additionalProperties: { type: 'string' }, 'x-extension': true },
	},
} as const;

const settingsResponse = {
	type: 'object',
	required: ['settings'],
	properties: { message: { type: 'string' }, settings: settingsSchema },
} as const;

function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
	} catch {
		return false;
	}
}

export default async function settingsRoutes(app: FastifyInstance) {
	const { store, targets } = app.site;

	app.post<{ Body: SettingsBody }>(
		'/api/settings',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Save site settings (partial: fields not sent keep their value)',
				tags: ['tenant'],
				security: tenantSecurity,
				body: {
					type: 'object',
					additionalProperties: false,
					properties: {
						google_code: { type: ['string', 'null'], maxLength: 65536, description: 'analytics code; null clears' },
						noindex: { ...flagSchema, description: '1 turns the flag on (booleans accepted)' },
						statistics_iframe: { type: ['string', 'null'], maxLength: 65536, description: 'statistics iframe (HTML or URL); null clears' },
						contact_form_webhook_url: {
							type: ['string', 'null'],
							maxLength: 2048,
							// In the schema (not only in the handler) so it is reported together with every other bad field.
							pattern: '^(https?://[^\\s/?#]+\\S*)?$',
							'x-problem': 'must be an http(s) URL, null or ""',
							description: 'where contact-form submissions are POSTed: an http(s) URL; null or "" clears',
							'x-extension': true,
						},
						contact_form_webhook_headers: {
							type: ['object', 'null'],
							maxProperties: 50,
							propertyNames: {
								allOf: [
									{ pattern: HEADER_NAME, 'x-problem': 'is not a valid header name' },
									{ not: { pattern: RESERVED_HEADER_PATTERN }, 'x-problem': 'is set by the server and cannot be configured' },
								],
							},
							additionalProperties: {
								type: 'string',
								maxLength: 8192,
								pattern: '^[^\\r\\n\\u0000]*$',
								'x-problem': 'must be a string without line breaks, at most 8192 characters',
							},
							description: 'extra headers on each webhook POST (e.g. a shared secret); null clears',
							'x-extension': true,
						},
					},
				},
				response: { 200: settingsResponse, ...errorResponses },
			},
		},
		async (request) => {
			const body = request.body;
			const changes: Partial<Settings> = {};
			const problems: { field: string; problem: string }[] = [];
			if (body.google_code !== undefined) changes.google_code = body.google_code;
			if (body.noindex !== undefined) changes.noindex = body.noindex === true || body.noindex === 1 ? 1 : 0;
			if (body.statistics_iframe !== undefined) changes.statistics_iframe = body.statistics_iframe;
			if (body.contact_form_webhook_url !== undefined) {
				const url = body.contact_form_webhook_url;
				if (url === null || url === '') changes.contact_form_webhook_url = null;
				// The schema pattern catches nearly everything; URL parsing catches the rest (e.g. a bad port).
				else if (!isHttpUrl(url)) problems.push({ field: 'contact_form_webhook_url', problem: 'must be an http(s) URL, null or ""' });
				else {
					const refused = await targets.refusalForUrlResolved(new URL(url));
					if (refused === undefined) changes.contact_form_webhook_url = url;
					else problems.push({ field: 'contact_form_webhook_url', problem: `must not point to ${refused}` });
				}
			}
			if (body.contact_form_webhook_headers !== undefined) changes.contact_form_webhook_headers = body.contact_form_webhook_headers;
			if (problems.length > 0) throw validationFailed(problems);
			const settings = store.settings.save(tenantOf(request).pk, changes);
			return { message: 'Settings saved successfully.', settings };
		},
	);

	app.get(
		'/api/settings',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Read the site settings',
				tags: ['tenant'],
				security: tenantSecurity,
				'x-extension': true,
				response: { 200: settingsResponse, ...errorResponses },
			} as Record<string, unknown>,
		},
		async (request) => ({ settings: store.settings.get(tenantOf(request).pk) }),
	);
}
