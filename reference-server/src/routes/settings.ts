import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { validationFailed, type FieldProblem } from '../errors/api-error';
import type { Settings } from '../db/settings';
import { tenantOf } from '../context';
import type { TargetPolicy } from '../delivery/target-policy';
import { asBoolean } from '../schemas/common';
import { settingsBody, readSettingsResponses, settingsResponses } from '../schemas/settings';

export function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
	} catch {
		return false;
	}
}

/** What is wrong with a webhook URL: not an http(s) URL, or pointing where webhooks may not go. */
export async function webhookUrlProblem(
	targets: TargetPolicy,
	url: string,
): Promise<string | undefined> {
	// The schemas' pattern admits only what URL parsing takes; the parse stays as a second check.
	if (!isHttpUrl(url)) return 'must be an http(s) URL';
	const refused = await targets.refusalForUrlResolved(new URL(url));
	return refused === undefined ? undefined : `must not point to ${refused}`;
}

/**
 * Header names differ only in case in JSON but are one header on the wire: each at most once. A user
 * and password in the webhook URL are sent as an Authorization header: not together with another one.
 */
export function headerProblems(
	url: string | null,
	headers: Record<string, string> | null,
	field: string,
): FieldProblem[] {
	const problems: FieldProblem[] = [];
	const seen = new Set<string>();
	const urlHasUser = url !== null && /^[a-z]+:\/\/[^/?#]*@/i.test(url);
	for (const name of Object.keys(headers ?? {})) {
		const lower = name.toLowerCase();
		const problem = seen.has(lower)
			? 'is given twice (header names are case-insensitive)'
			: lower === 'authorization' && urlHasUser
				? 'cannot be set while the webhook URL carries a user and password (two Authorization headers)'
				: undefined;
		if (problem) problems.push({ field: `${field}.${name}`, problem });
		seen.add(lower);
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
				operationId: 'updateSettings',
				summary: 'Save site settings (partial: fields not sent keep their value)',
				body: settingsBody,
				response: settingsResponses,
			},
		},
		async (request) => {
			const { noindex, contact_form_webhook_url: url, ...sent } = request.body;
			// Only the fields sent change.
			const changes: Partial<Settings> = sent;
			const problems: FieldProblem[] = [];
			if (noindex !== undefined) changes.noindex = asBoolean(noindex, false) ? 1 : 0;
			if (url === null || url === '') changes.contact_form_webhook_url = null;
			else if (url !== undefined) {
				const problem = await webhookUrlProblem(targets, url);
				if (problem) problems.push({ field: 'contact_form_webhook_url', problem });
				else changes.contact_form_webhook_url = url;
			}
			const tenantPk = tenantOf(request).pk;
			if (problems.length === 0) {
				const { contact_form_webhook_url: url, contact_form_webhook_headers: headers } = {
					...store.settings.get(tenantPk),
					...changes,
				};
				problems.push(...headerProblems(url, headers, 'contact_form_webhook_headers'));
			}
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
				operationId: 'getSettings',
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
