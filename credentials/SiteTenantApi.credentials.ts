import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import { bearerTokenAuth, tenantSurfaceTest } from './shared';

export class SiteTenantApi implements ICredentialType {
	name = 'siteTenantApi';

	displayName = 'Site Management Tenant API';

	icon: Icon = { light: 'file:site.svg', dark: 'file:site.dark.svg' };

	documentationUrl =
		'https://github.com/site-management/n8n-nodes-site-management/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Tenant Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'http://127.0.0.1:4010',
			required: true,
			description:
				'Address of the tenant (site) surface of the Site Management Service, without /api',
		},
		{
			displayName: 'Tenant Token',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'A tenant token issued through the Admin API (Site Management Admin node, Token > Issue). Paste it here, never into a workflow.',
		},
		{
			displayName: 'Tenant ID',
			name: 'tenantId',
			type: 'string',
			default: '',
			placeholder: 'acme',
			description:
				'The tenant the token belongs to (optional; the token decides). The Contact Form Trigger needs it where the service does not say which tenant a token belongs to, to refuse deliveries naming another tenant.',
		},
	];

	authenticate = bearerTokenAuth('token');

	test = tenantSurfaceTest({
		unauthorized: 'The tenant token was not accepted (unknown, revoked or expired)',
		forbidden: 'This token is not a tenant token (an admin token cannot use the tenant surface)',
	});
}
