import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type FieldProblem, validationFailed } from '../errors/api-error';
import type { Settings } from '../db/settings';
import { tenantOf } from '../context';
import { settingsBody, readSettingsResponses, settingsResponses } from '../schemas/settings';

export function isHttpUrl(value: string): boolean {
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
export function headerProblems(
	settings: Pick<Settings, 'contact_form_webhook_url' | 'contact_form_webhook_headers'>,
): FieldProblem[] {
	const problems: FieldProblem[] = [];
	const seen = new Set<string>();
	for (const name of Object.keys(settings.contact_form_webhook_headers ?? {})) {
		const lower = name.toLowerCase();
		if (seen.has(lower))
			problems.push({
				field: `contact_form_webhook_headers.${name}`,
				problem: 'is given twice (header names are case-insensitive)',
			});
		seen.add(lower);
	}
	const url = settings.contact_form_webhook_url;
	const authorization = Object.keys(settings.contact_form_webhook_headers ?? {}).find(
		(name) => name.toLowerCase() === 'authorization',
	);
	if (url && authorization !== undefined && /^[a-z]+:\/\/[^/?#]*@/i.test(url)) {
		problems.push({
			field: `contact_form_webhook_headers.${authorization}`,
			problem:
				'cannot be set while the webhook URL carries a user and password (two Authorization headers)',
		});
	}
	return problems;
}

const settingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store, targets } = app.site;

	app.post(
		'/api/settings',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Save site settings (partial: fields not sent keep their value)',
				body: settingsBody,
				response: settingsResponses,
			},
		},
		async (request) => {
			const body = request.body;
			const changes: Partial<Settings> = {};
			const problems: { field: string; problem: string }[] = [];
			if (body.google_code !== undefined) changes.google_code = body.google_code;
			if (body.noindex !== undefined)
				changes.noindex = body.noindex === true || body.noindex === 1 ? 1 : 0;
			if (body.statistics_iframe !== undefined) changes.statistics_iframe = body.statistics_iframe;
			if (body.contact_form_webhook_url !== undefined) {
				const url = body.contact_form_webhook_url;
				if (url === null || url === '') changes.contact_form_webhook_url = null;
				// The schema's pattern admits only what URL parsing takes; the parse stays as a second check.
				else if (!isHttpUrl(url))
					problems.push({
						field: 'contact_form_webhook_url',
						problem: 'must be an http(s) URL, null or ""',
					});
				else {
					const refused = await targets.refusalForUrlResolved(new URL(url));
					if (refused === undefined) changes.contact_form_webhook_url = url;
					else
						problems.push({
							field: 'contact_form_webhook_url',
							problem: `must not point to ${refused}`,
						});
				}
			}
			if (body.contact_form_webhook_headers !== undefined)
				changes.contact_form_webhook_headers = body.contact_form_webhook_headers;
			const tenantPk = tenantOf(request).pk;
			if (problems.length === 0)
				problems.push(...headerProblems({ ...store.settings.get(tenantPk), ...changes }));
			if (problems.length > 0) throw validationFailed(problems);
			const settings = store.settings.save(tenantPk, changes);
			return { message: 'Settings saved successfully.', settings };
		},
	);

	// Extension routes only from here: none with --no-extensions (plugins/extensions.ts).
	if (!app.site.config.extensions) return;

	app.get(
		'/api/settings',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Read the site settings, and the test webhooks that get copies of submissions now',
				'x-extension': true,
				response: readSettingsResponses,
			},
		},
		async (request) => {
			const tenantPk = tenantOf(request).pk;
			return {
				settings: store.settings.get(tenantPk),
				test_webhooks: store.contactFormTestWebhooks.list(tenantPk),
			};
		},
	);
};

export default settingsRoutes;
