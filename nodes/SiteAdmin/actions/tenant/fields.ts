import type { INodeProperties } from 'n8n-workflow';

/** Field definitions the tenant operations share. */
export const tenantIdField: INodeProperties = {
	displayName: 'Tenant ID',
	name: 'id',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'acme',
	description:
		'Tenant identifier: 1 to 63 characters of a-z, 0-9, "-" and "_", starting with a letter or digit',
};

export const fqdnField: INodeProperties = {
	displayName: 'Domain (FQDN)',
	name: 'fqdn',
	type: 'string',
	default: '',
	placeholder: 'www.acme.example',
	description: "Fully qualified domain name of the tenant's site. Leave empty to not send it.",
};
