/**
 * The workflow of the real-n8n rows: a manual trigger, a source of page items {name, url, locale}, and one
 * Page Create node per contestant run, each a branch of its own on the same items. n8n runs the
 * branches of a node one after another, top to bottom by position (execution order "v1"), so the
 * nodes placed in a given order run one at a time in that order, all in one `n8n execute` process
 * (one start-up for all). The caller checks that from the nodes' start times.
 */
import { randomUUID } from 'crypto';

/**
 * One Page Create node, with its own credential: our Tenant node taking the item's fields by Map
 * Automatically (version 2) or by an expression per field (version 1), or n8n's HTTP Request node
 * with one JSON body expression.
 */
export interface Contestant {
	/** Node name (unique in the workflow). */
	name: string;
	kind: 'tenantMapped' | 'tenantFields' | 'httpRequest';
	/** Credential ID: siteTenantApi for the Tenant node, httpHeaderAuth for the HTTP Request node. */
	credentialId: string;
	/** Options > Concurrency of the Tenant node; unset: the node's default. */
	concurrency?: number;
	/** Which item source feeds the node: the small warm-up one or the measured one. */
	source: 'warm' | 'main';
}

/** The HTTP Request node's current version in n8n 2.41.1 (its defaultVersion). */
export const HTTP_REQUEST_TYPE_VERSION = 4.5;
/** The HTTP Request node's version in the Page Create rows: 4.2, the one users' workflows carry most. */
export const PAGE_HTTP_REQUEST_TYPE_VERSION = 4.2;
export const TENANT_TYPE_VERSION = 1;
/** The Tenant node's version with Map Automatically (nodes/shared/fieldMapping.ts). */
export const TENANT_MAPPED_TYPE_VERSION = 2;

const TENANT_NODE_TYPE = 'n8n-nodes-site-management.siteTenant';

/** Set (raw JSON from an expression) then Split Out: `count` items without a Code node's task runner. */
function itemSource(prefix: string, count: number, y: number) {
	const pages = `Array.from({ length: ${count} }, (_, i) => ({ name: 'Page ' + i, url: '/bench/page-' + i, locale: 'en' }))`;
	return [
		{
			name: `${prefix} items`,
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [300, y],
			parameters: { mode: 'raw', jsonOutput: `={{ { pages: ${pages} } }}`, options: {} },
		},
		{
			name: `${prefix} split`,
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [500, y],
			parameters: { fieldToSplitOut: 'pages', options: {} },
		},
	];
}

/** Page > Create of the item's name, url and locale; Options > Concurrency when given. */
function tenantParameters(contestant: Contestant) {
	const options =
		contestant.concurrency === undefined ? {} : { concurrency: contestant.concurrency };
	const fields =
		contestant.kind === 'tenantMapped'
			? {
					columns: {
						mappingMode: 'autoMapInputData',
						value: null,
						matchingColumns: [],
						schema: [],
						attemptToConvertTypes: false,
						convertFieldsToString: false,
					},
				}
			: { name: '={{ $json.name }}', url: '={{ $json.url }}', locale: '={{ $json.locale }}' };
	return { resource: 'page', operation: 'create', ...fields, options };
}

/** Page > Create of the item's name, url and locale; every other option at its default. */
function contestantNode(contestant: Contestant, baseUrl: string, position: [number, number]) {
	if (contestant.kind !== 'httpRequest') {
		return {
			name: contestant.name,
			type: TENANT_NODE_TYPE,
			typeVersion:
				contestant.kind === 'tenantMapped' ? TENANT_MAPPED_TYPE_VERSION : TENANT_TYPE_VERSION,
			position,
			parameters: tenantParameters(contestant),
			credentials: {
				siteTenantApi: { id: contestant.credentialId, name: contestant.credentialId },
			},
		};
	}
	// The same request by hand: POST, the JSON body as one expression over the item, the token in a
	// header-auth credential, Accept JSON; every other option at its default.
	return {
		name: contestant.name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: PAGE_HTTP_REQUEST_TYPE_VERSION,
		position,
		parameters: {
			method: 'POST',
			url: `${baseUrl}/api/page`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Accept', value: 'application/json' }] },
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ { name: $json.name, url: $json.url, locale: $json.locale } }}',
			options: {},
		},
		credentials: { httpHeaderAuth: { id: contestant.credentialId, name: contestant.credentialId } },
	};
}

/**
 * The workflow: warm-up branches first (above), then the measured ones, each contestant below the one
 * before, in the order given.
 */
export function pageCreateWorkflow(options: {
	id: string;
	baseUrl: string;
	items: number;
	warmItems: number;
	contestants: Contestant[];
}) {
	const link = (node: string) => ({ node, type: 'main', index: 0 });
	const warm = options.contestants.filter((c) => c.source === 'warm');
	const main = options.contestants.filter((c) => c.source === 'main');
	const place = (list: Contestant[], top: number) =>
		list.map((c, i) => contestantNode(c, options.baseUrl, [800, top + i * 200]));
	const warmTop = -200 * (warm.length + 1);
	const nodes = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		...itemSource('Warm-up', options.warmItems, warmTop),
		...itemSource('Measured', options.items, 0),
		...place(warm, warmTop),
		...place(main, 0),
	];
	return {
		id: options.id,
		name: `Bench: Page Create, Tenant node vs HTTP Request node (${options.id})`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: nodes.map((node) => ({ id: randomUUID(), ...node })),
		connections: {
			Start: { main: [[link('Warm-up items'), link('Measured items')]] },
			'Warm-up items': { main: [[link('Warm-up split')]] },
			'Measured items': { main: [[link('Measured split')]] },
			'Warm-up split': { main: [warm.map((c) => link(c.name))] },
			'Measured split': { main: [main.map((c) => link(c.name))] },
		},
	};
}
