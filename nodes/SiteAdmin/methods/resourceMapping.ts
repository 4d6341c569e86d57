/** The fields n8n's resource mapper offers, named as the service names them. */
import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { resourceMapperFields } from '../../shared/fieldMapping';
import { TENANT_FIELDS } from '../actions/tenant/create.operation';

export async function tenantFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	return resourceMapperFields(TENANT_FIELDS);
}
