/**
 * API Call: any method and path under /api/ of the tenant surface, with query parameters and
 * a JSON body, authenticated by the node's credential. The way to the chatbot and to any endpoint
 * without an operation of its own.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { isPlainObject, objectOr } from '../../../shared/json';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequestFull } from '../../../shared/transport';
import { parseJsonValue } from '../../../shared/validation';
import { readApiPath } from './apiPath';
import { jsonTextField } from '../../../shared/jsonText';

const METHODS_WITH_BODY: IHttpRequestMethods[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

const ENDPOINTS_HINT =
	'Endpoints of the site: GET /api/pages, POST /api/page, DELETE /api/page, PUT /api/content, POST /api/asset (multipart: use Asset > Upload), POST /api/settings, POST /api/sitemap, POST /api/notifications, GET/PUT/DELETE /api/variables, and any other endpoint of the deployment (e.g. a chatbot).';

const PATH: INodeProperties = {
	displayName: 'Path',
	name: 'path',
	type: 'string',
	default: '/api/pages',
	hint: ENDPOINTS_HINT,
	required: true,
	placeholder: '/api/chatbot',
	description:
		"Endpoint path under /api/ on the credential's tenant base URL, e.g. /api/chatbot. Full URLs and paths leaving /api/ are rejected.",
};

const properties: INodeProperties[] = [
	{
		displayName: 'Method',
		name: 'method',
		type: 'options',
		options: [
			{ name: 'DELETE', value: 'DELETE' },
			{ name: 'GET', value: 'GET' },
			{ name: 'PATCH', value: 'PATCH' },
			{ name: 'POST', value: 'POST' },
			{ name: 'PUT', value: 'PUT' },
		],
		default: 'GET',
		description: 'HTTP method of the call',
	},
	PATH,
	{
		displayName: 'Query Parameters',
		name: 'queryParameters',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Parameter',
		default: {},
		options: [
			{
				displayName: 'Parameter',
				name: 'parameter',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	},
	{
		displayName: 'JSON Body',
		name: 'body',
		...jsonTextField(4),
		default: '',
		placeholder: '{"id": "job-1", "message": "Done", "status": "success"}',
		displayOptions: { show: { method: METHODS_WITH_BODY } },
		description: 'Request body as a JSON object (or array). Leave empty to send no body.',
	},
	{
		displayName: 'Split Listing Into Items',
		name: 'splitData',
		type: 'boolean',
		default: false,
		description:
			'Whether to output one item per entry of the answer\'s "data" list (a listing such as GET /api/pages), instead of the whole answer as one item. An answer without a "data" list is output as it is.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['customApiCall'], operation: ['call'] } },
	properties,
);

function queryObject(collection: unknown): IDataObject {
	const entries = ((collection as IDataObject | undefined)?.parameter ?? []) as IDataObject[];
	const qs: IDataObject = {};
	for (const entry of entries) {
		const name = String(entry.name ?? '').trim();
		if (name) qs[name] = entry.value ?? '';
	}
	return qs;
}

function readBody(
	ctx: IExecuteFunctions,
	itemIndex: number,
): IDataObject | IDataObject[] | undefined {
	const value = ctx.getNodeParameter('body', itemIndex, '') as unknown;
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'string' && !value.trim()) return undefined;
	const text = typeof value === 'string' ? value.trim() : undefined;
	const looksLikeArray = Array.isArray(value) || (text !== undefined && text.startsWith('['));
	return looksLikeArray
		? parseJsonValue(ctx, value, 'JSON Body', 'array', itemIndex)
		: parseJsonValue(ctx, value, 'JSON Body', 'object', itemIndex);
}

/** One item per entry; an entry that is not an object is kept as `{value}`. */
function listItems(list: unknown[]): IDataObject[] {
	return list.map((entry) => objectOr(entry, { value: entry } as IDataObject));
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | IDataObject[]> {
	const method = this.getNodeParameter('method', itemIndex, 'GET') as IHttpRequestMethods;
	const path = readApiPath(this, itemIndex);
	const qs = queryObject(this.getNodeParameter('queryParameters', itemIndex, {}));
	const body = METHODS_WITH_BODY.includes(method) ? readBody(this, itemIndex) : undefined;

	const response = await siteRequestFull.call(
		this,
		{
			method,
			path,
			...(Object.keys(qs).length ? { qs } : {}),
			...(body !== undefined ? { body } : {}),
		},
		{ itemIndex, target },
	);

	const result = response.body;
	if (this.getNodeParameter('splitData', itemIndex, false) && isPlainObject(result)) {
		if (Array.isArray(result.data)) return listItems(result.data);
	}
	if (Array.isArray(result)) {
		return listItems(result);
	}
	if (typeof result === 'object' && result !== null) return result as IDataObject;
	// No JSON object in the answer (empty body, text): keep what there is, with the status.
	return {
		statusCode: response.statusCode,
		...(result !== undefined && result !== '' ? { body: result } : {}),
	};
}
