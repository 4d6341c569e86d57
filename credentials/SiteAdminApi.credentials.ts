import type {
	IAuthenticateRuleResponseSuccessBody,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { bearerTokenAuth, REDIRECT_STATUSES, redirectRules } from './shared';

const NOT_THE_SERVICE =
	'No Site Management Admin API at this base URL (POST /api/tenant/token did not answer as the service does). Give the address without /api.';

/**
 * The central surface has no read-only call, so the test asks for a token with an invalid (empty)
 * tenant id: a good admin token gets `400 validation_failed` (nothing is created), a bad one
 * `401 unauthorized`, a tenant token `403 forbidden`.
 *
 * Every status but a redirect comes back (`ignoreHttpStatusErrors`) and the rules judge the answer's `error`
 * field: anything but `validation_failed` fails, and so does an answer without one (another server at
 * that URL). Rules on the status code would need the object form `{ ignore, except }` to let only the
 * failing statuses throw; n8n 1.x reads that as plain `true` and would pass every token.
 */
const FAILING_ERRORS: Array<[code: string | undefined, message: string]> = [
	['unauthorized', 'The admin token was not accepted (unknown or revoked)'],
	['forbidden', 'This token is not an admin token (a tenant token cannot use the Admin API)'],
	['not_found', NOT_THE_SERVICE],
	[undefined, NOT_THE_SERVICE],
	['invalid_json', NOT_THE_SERVICE],
	['unsupported_media_type', NOT_THE_SERVICE],
	['payload_too_large', NOT_THE_SERVICE],
	['conflict', NOT_THE_SERVICE],
	['rate_limited', 'The service is rate limiting this client (HTTP 429): try the test again later'],
	['internal', 'The service failed to answer (HTTP 5xx): try the test again later'],
	['unavailable', 'The service is unavailable (HTTP 503): try the test again later'],
];

export class SiteAdminApi implements ICredentialType {
	name = 'siteAdminApi';

	displayName = 'Site Management Admin API';

	icon: Icon = { light: 'file:site.svg', dark: 'file:site.dark.svg' };

	documentationUrl =
		'https://github.com/site-management/n8n-nodes-site-management/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Admin Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'http://127.0.0.1:4010',
			required: true,
			description: 'Address of the Admin API of the Site Management Service, without /api',
		},
		{
			displayName: 'Admin Token',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The admin token the service was started with (ADMIN_TOKEN)',
		},
	];

	authenticate = bearerTokenAuth('token');

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/api/tenant/token',
			method: 'POST',
			// An id the service rejects as malformed: answered before anything is issued.
			body: { id: '' },
			json: true,
			// Every status but a redirect comes back; a redirect throws and its rule below names it. n8n
			// 1.x reads the object as `true`: the redirect's body then fails the body rules instead.
			ignoreHttpStatusErrors: { ignore: true, except: REDIRECT_STATUSES },
			// Following a redirect would send the admin token to the host it names.
			disableFollowRedirect: true,
		},
		// n8n's type wants rules of one kind, but its tester reads each rule by its type (status rules
		// for a thrown answer, body rules for a returned one), so both kinds can stand in one list.
		rules: [
			...redirectRules('admin base URL'),
			...FAILING_ERRORS.map(([code, message]) => ({
				type: 'responseSuccessBody' as const,
				properties: { key: 'error', value: code, message },
			})),
		] as unknown as IAuthenticateRuleResponseSuccessBody[],
	};
}
