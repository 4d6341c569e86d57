import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/**
 * The shared secret of a contact-form webhook registered by hand: the site sends it in a header of
 * its own choosing, the Site Management Contact Form Trigger (registration "Manual") checks it. No
 * request is ever sent with it; the trigger node checks the values when the credential is saved
 * (`testedBy`).
 */
export class SiteContactFormSecretApi implements ICredentialType {
	name = 'siteContactFormSecretApi';

	displayName = 'Site Management Contact Form Secret API';

	icon: Icon = { light: 'file:site.svg', dark: 'file:site.dark.svg' };

	documentationUrl =
		'https://www.npmjs.com/package/n8n-nodes-site-management#site-management-contact-form-trigger';

	properties: INodeProperties[] = [
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
	];
}
