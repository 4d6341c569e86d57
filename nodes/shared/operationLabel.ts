import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** Human names of a node's operations ("Page > Create") by `resource:operation`. */
export type OperationLabels = Record<string, string>;

/**
 * The names the editor shows for each resource and operation, read from the node's own Resource and
 * Operation properties, so an error names the operation as the user picked it.
 */
export function operationLabels(properties: INodeProperties[]): OperationLabels {
	const resourceNames: Record<string, string> = {};
	for (const property of properties) {
		if (property.name !== 'resource' || !Array.isArray(property.options)) continue;
		for (const option of property.options)
			if ('value' in option) resourceNames[String(option.value)] = option.name;
	}
	const labels: OperationLabels = {};
	for (const property of properties) {
		if (property.name !== 'operation' || !Array.isArray(property.options)) continue;
		const resources = (property.displayOptions?.show?.resource ?? []) as string[];
		for (const option of property.options) {
			if (!('value' in option)) continue;
			for (const resource of resources)
				labels[`${resource}:${String(option.value)}`] =
					`${resourceNames[resource] ?? resource} > ${option.name}`;
		}
	}
	return labels;
}

/** The label of the node's resource and operation (both take no expressions: read once). */
export function currentOperationLabel(ctx: IExecuteFunctions, labels: OperationLabels): string {
	const resource = String(ctx.getNodeParameter('resource', 0));
	const operation = String(ctx.getNodeParameter('operation', 0));
	return labels[`${resource}:${operation}`] ?? `${resource} > ${operation}`;
}
