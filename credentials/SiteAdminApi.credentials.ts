import type { ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import { bearerTokenAuth } from './shared';

/**
 * HTTP statuses that make the credential test fail. The central surface has no read-only call, so
 * the test asks for a token with an invalid (empty) tenant id: a good admin token gets
 * `400 validation_failed` (nothing is created), a bad one `401`, a tenant token `403`. n8n treats
 * every non-2xx as a failure, so the request ignores HTTP errors except these, and 400 passes.
 */
const FAILING_STATUSES = Array.from({ length: 500 }, (_, offset) => 100 + offset).filter(
	(status) => status !== 400 && (status < 200 || status > 299),
);

export class SiteAdminApi implements ICredentialType {
	name = 'siteAdminApi';

	displayName = 'Site Management Admin API';

	icon: Icon = { light: 'file:site.svg', dark: 'file:site.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-site-management#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Admin Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'http://127.0.0.1:4010',
			required: true,
			description:
				'Address of the central (admin) surface of the Site Management Service, without /api',
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
			ignoreHttpStatusErrors: { ignore: true, except: FAILING_STATUSES },
		},
		rules: [
			{
				type: 'responseCode',
				properties: { value: 401, message: 'The admin token was not accepted (unknown or revoked)' },
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'This token is not an admin token (a tenant token cannot use the central surface)',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No Site Management central surface at this base URL (POST /api/tenant/token not found)',
				},
			},
		],
	};
}
