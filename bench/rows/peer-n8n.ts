/**
 * A real n8n (tools/n8n-runtime/, the version users run): Page Create by our Tenant node (at its
 * defaults: a window of Concurrency requests in flight) against n8n's own HTTP Request node 4.2
 * sending the same requests with a header-auth credential and one JSON body expression (its default:
 * every item's request started at once), with the server 20 ms away and on loopback. The Tenant node
 * runs twice per round: with Map Automatically (version 2; the judged rows) and with an expression per
 * field (version 1; figures). Each contestant is timed by its node's own execution time in the run
 * data, so n8n's start-up and the item source are not counted.
 *
 * One workflow per server holds every run as a branch of its own (lib/peer-workflow.ts), in ABBA
 * order, run by one `n8n execute`; each run creates its pages in a tenant of its own (same URLs,
 * an empty tenant each), and the pages are counted on the server.
 */
import { DEFAULT_CONCURRENCY } from '../../nodes/shared/window';
import {
	call,
	createTenant,
	expectStatus,
	log,
	quick,
	rows,
	startSite,
	stopChild,
	type Site,
} from '../lib/context';
import {
	PAGE_HTTP_REQUEST_TYPE_VERSION,
	pageCreateWorkflow,
	TENANT_MAPPED_TYPE_VERSION,
	TENANT_TYPE_VERSION,
	type Contestant,
} from '../lib/peer-workflow';
import {
	nodeItems,
	prepareRealN8n,
	type CpuTime,
	type ImportedCredential,
	type NodeRun,
	type WorkflowRun,
} from '../lib/real-n8n';
import { round } from '../lib/stats';

const ITEMS = quick ? 200 : 1_000;
/** ABBA rounds; even a quick run has two, so neither node always runs first (a round costs seconds here). */
const ROUNDS = quick ? 2 : 3;
/** Each node type runs once on a few items first, so neither measured run pays for a cold start. */
const WARM_ITEMS = 100;
/** The Tenant node (Map Automatically) at other Concurrency settings: figures for choosing the default (full runs only). */
const OTHER_CONCURRENCY = quick
	? []
	: [8, 16, 32, 64].filter((concurrency) => concurrency !== DEFAULT_CONCURRENCY);
const EXECUTE_TIMEOUT_MS = 8 * 60_000;

interface Setting {
	/** The judged row's id (Map Automatically). */
	id: string;
	/** The expression-per-field row's id (figures). */
	fieldsId: string;
	/** Part of the n8n IDs (credentials and workflow are 16 letters and digits, like n8n's own). */
	key: string;
	where: string;
	delayMs: number;
	goal: number;
}

const SETTINGS: Setting[] = [
	{
		id: 'peer-n8n-mapped-20ms',
		fieldsId: 'peer-n8n-fields-20ms',
		key: '20ms',
		where: 'server 20 ms away',
		delayMs: 20,
		goal: 1.3,
	},
	{
		id: 'peer-n8n-mapped-loopback',
		fieldsId: 'peer-n8n-fields-loopback',
		key: 'Loop',
		where: 'server on loopback',
		delayMs: 0,
		goal: 1.0,
	},
];

/** A run of the plan: a contestant and, for the judged runs, its ABBA round (none for warm-ups and the other Concurrency settings). */
type Planned = Omit<Contestant, 'credentialId'> & { round?: number };

interface Entry extends Planned {
	credentialId: string;
	token: string;
	items: number;
}

interface Prepared {
	setting: Setting;
	site: Site;
	workflowId: string;
	entries: Entry[];
}

const LABELS: Record<Contestant['kind'], string> = {
	tenantMapped: 'Tenant, Map Automatically',
	tenantFields: 'Tenant, an expression per field',
	httpRequest: 'HTTP Request',
};

/**
 * The runs of one server in the order they run: warm-ups, the rounds (each reverses the one before,
 * so every pair alternates who goes first), then the other Concurrency settings.
 */
function plan(): Planned[] {
	const kinds: Array<Contestant['kind']> = ['tenantMapped', 'httpRequest', 'tenantFields'];
	const list: Planned[] = kinds.map((kind) => ({
		name: `Warm-up: ${LABELS[kind]}`,
		kind,
		source: 'warm',
	}));
	for (let r = 0; r < ROUNDS; r++) {
		for (const kind of r % 2 === 0 ? kinds : [...kinds].reverse())
			list.push({ name: `Round ${r + 1}: ${LABELS[kind]}`, kind, source: 'main', round: r });
	}
	for (const concurrency of OTHER_CONCURRENCY)
		list.push({
			name: `Tenant, Concurrency ${concurrency}`,
			kind: 'tenantMapped',
			source: 'main',
			concurrency,
		});
	return list;
}

/** A server, a tenant per run, the credentials to import and the workflow. */
async function prepare(setting: Setting, credentials: ImportedCredential[]): Promise<Prepared> {
	const site = await startSite({}, setting.delayMs);
	const entries: Entry[] = [];
	for (const [index, contestant] of plan().entries()) {
		const token = await createTenant(site, `peer-${index}`);
		const credentialId = `peerCred${setting.key}${String(index).padStart(4, '0')}`;
		credentials.push(
			contestant.kind !== 'httpRequest'
				? {
						id: credentialId,
						name: credentialId,
						type: 'siteTenantApi',
						data: { baseUrl: site.url, token },
					}
				: {
						id: credentialId,
						name: credentialId,
						type: 'httpHeaderAuth',
						data: { name: 'Authorization', value: `Bearer ${token}` },
					},
		);
		entries.push({
			...contestant,
			credentialId,
			token,
			items: contestant.source === 'warm' ? WARM_ITEMS : ITEMS,
		});
	}
	return { setting, site, workflowId: `peerN8n${setting.key}00001`, entries };
}

/**
 * The run of each entry, checked: it ran alone and in the planned order (so ABBA holds), output one
 * created page per item, and the server holds exactly that many pages in its tenant.
 */
async function checkedRuns(prepared: Prepared, run: WorkflowRun): Promise<NodeRun[]> {
	const runs = prepared.entries.map((entry) => {
		const nodeRun = run.data.resultData.runData[entry.name]?.[0];
		if (!nodeRun) throw new Error(`${prepared.setting.id}: node "${entry.name}" did not run`);
		const items = nodeItems(run, entry.name);
		// The Tenant node outputs the page itself; the HTTP Request node the service's answer {message, page}.
		const isCreatedPage = (item: Record<string, unknown>) =>
			typeof item.page === 'object' || typeof item.url === 'string';
		if (items.length !== entry.items || !items.every(isCreatedPage)) {
			throw new Error(
				`${prepared.setting.id}: "${entry.name}" output ${items.length} items, expected ${entry.items} created pages`,
			);
		}
		return nodeRun;
	});
	runs.forEach((nodeRun, i) => {
		const before = runs[i - 1];
		if (before && before.startTime + before.executionTime > nodeRun.startTime) {
			throw new Error(
				`${prepared.setting.id}: "${prepared.entries[i].name}" did not run alone after "${prepared.entries[i - 1].name}"`,
			);
		}
	});
	for (const entry of prepared.entries) {
		const listed = await expectStatus(
			200,
			call(prepared.site.url, entry.token, 'GET', '/api/pages?per_page=1'),
		);
		const total = (listed.json?.meta as { total?: number } | undefined)?.total;
		if (total !== entry.items)
			throw new Error(
				`${prepared.setting.id}: "${entry.name}" left ${total} pages on the server, expected ${entry.items}`,
			);
	}
	return runs;
}

/** What a run of an entry measured: its node's execution time and the n8n process's CPU per item meanwhile. */
interface Measured {
	ms: number;
	cpuMsPerItem: number;
}

function measure(prepared: Prepared, runs: NodeRun[], cpu: CpuTime): Measured[] {
	return runs.map((nodeRun, i) => ({
		ms: nodeRun.executionTime,
		cpuMsPerItem:
			cpu(nodeRun.startTime, nodeRun.startTime + nodeRun.executionTime) / prepared.entries[i].items,
	}));
}

/**
 * The rows of one server: the judged one (Map Automatically against the HTTP Request node) and the
 * expression-per-field one (figures), both against the same HTTP Request runs.
 */
function pushRows(prepared: Prepared, measured: Measured[], wallMs: number, n8nVersion: string) {
	const { setting, entries } = prepared;
	const rate = (ms: number) => (ITEMS / ms) * 1000;
	const rounds = (kind: Contestant['kind']) =>
		measured.filter((_, i) => entries[i].round !== undefined && entries[i].kind === kind);
	const best = (list: Measured[], key: keyof Measured) => Math.min(...list.map((m) => m[key]));
	const runsOf = (list: Measured[], key: keyof Measured) =>
		list.map((m) => round(m[key], key === 'ms' ? 0 : 2)).join(' ');
	const http = rounds('httpRequest');
	const httpRate = rate(best(http, 'ms'));
	const concurrencyFigures = Object.fromEntries(
		entries.flatMap((entry, i) =>
			entry.concurrency === undefined
				? []
				: [[`tenantConcurrency${entry.concurrency}ItemsPerSecond`, round(rate(measured[i].ms), 0)]],
		),
	);
	const nodesMs = measured.reduce((sum, m) => sum + m.ms, 0);
	const httpFigures = {
		httpRequestNode: `typeVersion ${PAGE_HTTP_REQUEST_TYPE_VERSION}, one JSON body expression, options at their defaults`,
		httpRequestMs: best(http, 'ms'),
		httpRequestRuns: runsOf(http, 'ms'),
		httpRequestCpuMsPerItem: round(best(http, 'cpuMsPerItem'), 2),
		httpRequestCpuMsPerItemRuns: runsOf(http, 'cpuMsPerItem'),
	};
	const rowOf = (kind: 'tenantMapped' | 'tenantFields') => {
		const tenant = rounds(kind);
		const tenantRate = rate(best(tenant, 'ms'));
		const ratio = tenantRate / httpRate;
		const judged = kind === 'tenantMapped';
		log(
			`${setting.id} ${LABELS[kind]}: ${round(tenantRate, 0)} items/s (${runsOf(tenant, 'ms')} ms; CPU ${runsOf(tenant, 'cpuMsPerItem')} ms/item), ` +
				`HTTP Request ${round(httpRate, 0)} items/s (${runsOf(http, 'ms')} ms; CPU ${runsOf(http, 'cpuMsPerItem')} ms/item), ratio ${round(ratio, 2)}`,
		);
		return {
			id: judged ? setting.id : setting.fieldsId,
			row: `Page Create, ${ITEMS} items, real n8n ${n8nVersion}: ${LABELS[kind]} vs n8n's HTTP Request node (one JSON body expression), ${setting.where}`,
			measured: `Tenant ${round(tenantRate, 0)} items/s`,
			baseline: `HTTP Request ${round(httpRate, 0)} items/s`,
			ratio: round(ratio, 2),
			goal: judged ? `>= ${setting.goal}` : 'figures only',
			pass: judged ? ratio >= setting.goal : null,
			figures: {
				items: ITEMS,
				delayMs: setting.delayMs,
				rounds: ROUNDS,
				tenantNode: judged
					? `typeVersion ${TENANT_MAPPED_TYPE_VERSION}, Map Automatically, Concurrency ${DEFAULT_CONCURRENCY} (default)`
					: `typeVersion ${TENANT_TYPE_VERSION}, an expression per field (name, url, locale), Concurrency ${DEFAULT_CONCURRENCY} (default)`,
				tenantMs: best(tenant, 'ms'),
				tenantRuns: runsOf(tenant, 'ms'),
				// n8n's CPU per item (all its threads) while the node ran: the cost behind the rates, steadier than they are.
				tenantCpuMsPerItem: round(best(tenant, 'cpuMsPerItem'), 2),
				tenantCpuMsPerItemRuns: runsOf(tenant, 'cpuMsPerItem'),
				...httpFigures,
				...(judged
					? {
							[`tenantConcurrency${DEFAULT_CONCURRENCY}ItemsPerSecond`]: round(tenantRate, 0),
							...concurrencyFigures,
							n8nExecuteWallSeconds: round(wallMs / 1000, 1),
							outsideMeasuredNodesSeconds: round((wallMs - nodesMs) / 1000, 1),
						}
					: {}),
			},
		};
	};
	rows.push(rowOf('tenantMapped'), rowOf('tenantFields'));
}

export async function peerN8nRows(): Promise<void> {
	log('real n8n: preparing a user folder with this package (dist/) as a community package');
	const n8n = await prepareRealN8n();
	const credentials: ImportedCredential[] = [];
	const prepared: Prepared[] = [];
	try {
		for (const setting of SETTINGS) prepared.push(await prepare(setting, credentials));
		await n8n.importCredentials(credentials);
		await n8n.importWorkflows(
			prepared.map((p) =>
				pageCreateWorkflow({
					id: p.workflowId,
					baseUrl: p.site.url,
					items: ITEMS,
					warmItems: WARM_ITEMS,
					contestants: p.entries,
				}),
			),
		);
		for (const p of prepared) {
			log(
				`real n8n ${n8n.version.n8n}, ${p.setting.where}: ${ITEMS} items, ${ROUNDS} round(s) Tenant (Map Automatically) / HTTP Request / Tenant (an expression per field)${OTHER_CONCURRENCY.length ? `, Tenant at Concurrency ${OTHER_CONCURRENCY.join(', ')}` : ''}`,
			);
			const { run, wallMs, cpu } = await n8n.execute(p.workflowId, EXECUTE_TIMEOUT_MS);
			pushRows(p, measure(p, await checkedRuns(p, run), cpu), wallMs, n8n.version.n8n);
		}
	} finally {
		for (const p of prepared) await stopChild(p.site.child);
	}
}
