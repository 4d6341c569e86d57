import type { FastifyInstance } from 'fastify';
import { type FieldProblem, validationFailed } from '../errors/api-error';
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
/**
 * Headers the delivery worker can never send as configured: it sets them itself (content type and
 * length, host, user agent, its delivery mark) or they change how HTTP carries the request.
 */
const RESERVED_HEADERS = [
	'content-type',
	'content-length',
	'host',
	'transfer-encoding',
	'connection',
	'keep-alive',
	'upgrade',
	'te',
	'trailer',
	'expect',
	'user-agent',
	'x-site-delivery-id',
];
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

/**
 * Header names differ only in case in JSON but are one header on the wire: each at most once. A user
 * and password in the webhook URL are sent as an Authorization header: not together with another one.
 */
function headerProblems(settings: Pick<Settings, 'contact_form_webhook_url' | 'contact_form_webhook_headers'>): FieldProblem[] {
	const problems: FieldProblem[] = [];
	const seen = new Set<string>();
	for (const name of Object.keys(settings.contact_form_webhook_headers ?? {})) {
		const lower = name.toLowerCase();
		if (seen.has(lower)) problems.push({ field: `contact_form_webhook_headers.${name}`, problem: 'is given twice (header names are case-insensitive)' });
		seen.add(lower);
	}
	const url = settings.contact_form_webhook_url;
	const authorization = Object.keys(settings.contact_form_webhook_headers ?? {}).find((name) => name.toLowerCase() === 'authorization');
	if (url && authorization !== undefined && /^[a-z]+:\/\/[^/?#]*@/i.test(url)) {
		problems.push({ field: `contact_form_webhook_headers.${authorization}`, problem: 'cannot be set while the webhook URL carries a user and password (two Authorization headers)' });
	}
	return problems;
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
								// What Node's HTTP client sends: tab, printable ASCII and Latin-1; nothing else would ever go out.
								pattern: '^[\\t\\u0020-\\u007e\\u0080-\\u00ff]*$',
								'x-problem': 'must be a string of printable ASCII or Latin-1 characters (no line breaks or other control characters), at most 8192 characters',
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
			const tenantPk = tenantOf(request).pk;
			if (problems.length === 0) problems.push(...headerProblems({ ...store.settings.get(tenantPk), ...changes }));
			if (problems.length > 0) throw validationFailed(problems);
			const settings = store.settings.save(tenantPk, changes);
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
