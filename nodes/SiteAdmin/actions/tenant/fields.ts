import type { INodeProperties } from 'n8n-workflow';

import type { FieldLabels } from '../../../shared/errors';

/**
 * Field definitions the Admin node's operations share. Every operation names its tenant in the one
 * parameter `id` ("Tenant ID"), so a Tenant ID typed once stays when the resource
 * or operation changes.
 */
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

/** The service's field names as the editor shows them, for the field details of an error. */
export const TENANT_FIELD_LABELS: FieldLabels = {
	id: tenantIdField.displayName,
	fqdn: fqdnField.displayName,
};
