import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

export class SiteTenantApi implements ICredentialType {
	name = 'siteTenantApi';

	displayName = 'Site Management Tenant API';

	icon: Icon = { light: 'file:site.svg', dark: 'file:site.dark.svg' };

	documentationUrl = 'https://github.com/site-management/n8n-nodes-site-management#readme';

	properties: INodeProperties[] = [
		{
			displayName: 'Tenant Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'http://127.0.0.1:4010',
			required: true,
			description: "Address of the tenant (site) surface of the Site Management Service, without /api",
		},
		{
			displayName: 'Tenant Token',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'A tenant token issued by the central surface (Site Management Admin node, Token > Issue). Paste it here, never into a workflow.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '={{"Bearer " + $credentials.token}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/api/pages',
			method: 'GET',
			qs: { per_page: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: { value: 401, message: 'The tenant token was not accepted (unknown, revoked or expired)' },
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'This token is not a tenant token (an admin token cannot use the tenant surface)',
				},
			},
		],
	};
}
