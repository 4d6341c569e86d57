import type { INodeProperties } from 'n8n-workflow';

/**
 * The canvas subtitle: the chosen operation's human name (its `action`, e.g. "Get a page") instead
 * of n8n's raw "get: page". Built from the node's own Operation properties, so a new operation
 * needs no second list.
 */
export function operationSubtitle(properties: INodeProperties[]): string {
	const names: Record<string, string> = {};
	for (const property of properties) {
		if (property.name !== 'operation' || !Array.isArray(property.options)) continue;
		const resources = (property.displayOptions?.show?.resource ?? []) as string[];
		for (const option of property.options) {
			if (!('value' in option)) continue;
			for (const resource of resources)
				names[`${resource}:${String(option.value)}`] = option.action ?? option.name;
		}
	}
	return `={{ ${JSON.stringify(names)}[$parameter["resource"] + ":" + $parameter["operation"]] || $parameter["operation"] }}`;
}
