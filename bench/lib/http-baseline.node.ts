/**
 * A second baseline for the Page rows: the same POSTs (mode `create`) or paginated GETs (mode `list`) sent by a bare n8n node through n8n's
 * own HTTP helper (`httpRequestWithAuthentication` with the same credential), with the same
 * expressions, Idempotency-Key and JSON. That is what a hand-built HTTP Request node costs in n8n, so
 * "Tenant node / this" is the price of the Tenant node's own code (validation, retries, errors, paired
 * items) on top of n8n's HTTP stack, while "Tenant node / fetch loop" also contains n8n's engine,
 * expression evaluation and HTTP client.
 */
import { randomUUID } from 'crypto';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

export class HttpBaseline implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bench HTTP Baseline',
		name: 'benchHttpBaseline',
		group: ['transform'],
		version: 1,
		description: "POST /api/page per item through n8n's HTTP helper",
		defaults: { name: 'HTTP Baseline' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'siteTenantApi', required: true }],
		properties: [
			{ displayName: 'Mode', name: 'mode', type: 'string', default: 'create' },
			{ displayName: 'Name', name: 'name', type: 'string', default: '' },
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Locale', name: 'locale', type: 'string', default: '' },
			{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 1 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		if (this.getNodeParameter('mode', 0) === 'list') return [await listAll(this)];
		const items = this.getInputData();
		const output: INodeExecutionData[] = new Array(items.length);
		// Requests in flight at once (a plain lane loop, no retries): the floor for a concurrent node.
		const concurrency = Math.max(1, Number(this.getNodeParameter('concurrency', 0, 1)));
		let next = 0;
		const lane = async () => {
			while (next < items.length) {
				const i = next++;
				const credentials = await this.getCredentials('siteTenantApi', i);
				const body = {
					name: this.getNodeParameter('name', i) as string,
					url: this.getNodeParameter('url', i) as string,
					locale: this.getNodeParameter('locale', i) as string,
				};
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'siteTenantApi',
					{
						method: 'POST',
						url: `${String(credentials.baseUrl)}/api/page`,
						headers: { 'Idempotency-Key': randomUUID() },
						body,
						json: true,
					},
				)) as { page?: object };
				output[i] = { json: response as never, pairedItem: { item: i } };
			}
		};
		await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
		return [output];
	}
}

/** GET /api/pages?page=N&per_page=100 until meta.last_page, every page's rows as items. */
async function listAll(ctx: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const credentials = await ctx.getCredentials('siteTenantApi', 0);
	const output: INodeExecutionData[] = [];
	for (let page = 1; ; page++) {
		const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'siteTenantApi', {
			method: 'GET',
			url: `${String(credentials.baseUrl)}/api/pages`,
			qs: { page, per_page: 100 },
			json: true,
		})) as { data: object[]; meta: { last_page: number } };
		for (const row of response.data) output.push({ json: row as never, pairedItem: { item: 0 } });
		if (page >= response.meta.last_page) return output;
	}
}
