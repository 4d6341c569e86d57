import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import { MIN_SECRET_LENGTH } from '../nodes/shared/deliverySecret';

/**
 * The shared secret of a contact-form webhook registered by hand: the site sends it in a header of
 * its own choosing, the Site Management Contact Form Trigger (registration "Manual") checks it. No
 * request is ever sent with it, so it has no `authenticate` and sends no bearer token. The trigger
 * node checks the values when the credential is saved (`testedBy`), and n8n refuses to create one
 * whose secret is too short (the required notice below).
 */
export class SiteContactFormSecretApi implements ICredentialType {
	name = 'siteContactFormSecretApi';

	displayName = 'Site Management Contact Form Secret API';

	icon: Icon = { light: 'file:site.svg', dark: 'file:site.dark.svg' };

	documentationUrl =
		'https://github.com/site-management/n8n-nodes-site-management/blob/main/docs/contact-form-trigger.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Tenant ID',
			name: 'tenantId',
			type: 'string',
			default: '',
			placeholder: 'acme',
			required: true,
			description:
				'The tenant whose site sends to this webhook. A delivery naming another tenant (tenant_id) is refused.',
		},
		{
			displayName: 'Header Name',
			name: 'headerName',
			type: 'string',
			default: 'X-Site-Webhook-Secret',
			required: true,
			description:
				"Name of the header that carries the secret. Enter the same name under the site's contact-form webhook headers.",
		},
		{
			displayName: 'Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The header\'s value: a long random string (at least 16 characters), e.g. from "openssl rand -hex 32". Enter the same value in the site\'s settings.',
		},
		// Credential property validation: n8n refuses to create a credential while a required property
		// it displays is empty. This notice is displayed (and, being a notice, always empty) exactly
		// while the secret is shorter than MIN_SECRET_LENGTH, so a short secret cannot be saved.
		{
			displayName: `The secret must be at least ${MIN_SECRET_LENGTH} characters long; n8n does not save the credential until it is.`,
			name: 'atLeast16Characters',
			type: 'notice',
			default: '',
			required: true,
			displayOptions: {
				show: { secret: [{ _cnd: { regex: `^[\\s\\S]{0,${MIN_SECRET_LENGTH - 1}}$` } }] },
			},
		},
	];
}
