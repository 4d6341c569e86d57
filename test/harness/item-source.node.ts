import { createReadStream } from 'fs';
import type {
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

/**
 * A file to attach as n8n binary data: its bytes (`data`), or a file on disk (`filePath`) that is
 * streamed into n8n's binary store without ever being held whole in memory (large-file benchmarks).
 */
export type SourceBinary =
	| { data: Buffer; fileName?: string; mimeType?: string }
	| { filePath: string; fileName?: string; mimeType?: string };

/** What a test feeds into the node under test: JSON items, optionally with binary files. */
export interface SourceItem {
	json: IDataObject;
	/** property name -> file to attach as n8n binary data */
	binary?: Record<string, SourceBinary>;
}

/**
 * Start node of every test workflow (n8n's Manual Trigger lives in nodes-base, which is not a
 * dependency): emits the items the test placed in `registry` under the node's `key` parameter,
 * storing binaries through n8n's own binary-data service (filesystem mode, as n8n runs by default).
 */
export const sourceRegistry = new Map<string, SourceItem[]>();

export class ItemSource implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Item Source',
		name: 'itemSource',
		group: ['input'],
		version: 1,
		description: 'Emits the items a test prepared',
		defaults: { name: 'Source' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Key', name: 'key', type: 'string', default: '' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const key = this.getNodeParameter('key', 0) as string;
		const items = sourceRegistry.get(key) ?? [{ json: {} }];
		const output: INodeExecutionData[] = [];
		for (const item of items) {
			let binary: IBinaryKeyData | undefined;
			if (item.binary) {
				binary = {};
				for (const [property, file] of Object.entries(item.binary)) {
					// n8n-core accepts a Readable as well as a Buffer and streams it into its store.
					const content = 'filePath' in file ? createReadStream(file.filePath) : file.data;
					binary[property] = await this.helpers.prepareBinaryData(
						content,
						file.fileName,
						file.mimeType,
					);
				}
			}
			output.push({ json: item.json, ...(binary ? { binary } : {}) });
		}
		return [output];
	}
}
