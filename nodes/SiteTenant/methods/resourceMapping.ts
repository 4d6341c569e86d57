/** The fields n8n's resource mapper offers, named as the service names them. */
import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { resourceMapperFields } from '../../shared/fieldMapping';
import { PAGE_FIELDS } from '../actions/page/create.operation';
import { VARIABLE_FIELDS } from '../actions/variable/set.operation';

export async function pageFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	return resourceMapperFields(PAGE_FIELDS);
}

export async function variableFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	return resourceMapperFields(VARIABLE_FIELDS);
}
