import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import {
	MANAGED_TENANT,
	TENANT_TOKEN,
	tenantAuthenticationProperty,
} from '../shared/authentication';
import { detectChanges, type PageChange, type PageEvent } from './changes';
import { withContent } from './content';
import { listAllPages, readSnapshot, type PollLimits, type Snapshot } from './snapshot';
import { watchedSite } from './site';
import { resolveTenantTarget } from '../shared/target';
import { readState, stateOf, timeOf, writeState } from './state';

const EVENTS: Array<{ name: string; value: PageEvent; description: string }> = [
	{
		name: 'Page Published',
		value: 'pagePublished',
		description: 'A page whose URL was not published at the last poll',
	},
	{
		name: 'Page Updated',
		value: 'pageUpdated',
		description: 'A page whose updated_at moved (its content changed)',
	},
	{
		name: 'Page Removed',
		value: 'pageRemoved',
		description: 'A page that was published at the last poll and is gone',
	},
];

/**
 * Polls of one trigger running now in this process (workflow id and node id). A poll that starts while
 * the previous one still runs (a slow site, close Poll Times) would read the same state and report
 * the same changes again: it does nothing instead, and the next poll sees all. Polls of active
 * workflows all run in n8n's main process (the leader in queue mode), so this process is the one.
 */
const pollsInFlight = new Set<string>();

/** A poll's deadline by default, and the longest one allowed (seconds): docs/page-trigger.md. */
const DEFAULT_POLL_DEADLINE_S = 45;
const MAX_POLL_DEADLINE_S = 300;
/** The largest answer a poll reads by default, and the largest cap allowed (MB): docs/page-trigger.md. */
const DEFAULT_MAX_ANSWER_MB = 64;
const MAX_ANSWER_MB = 1024;

/** created_at of every watched page, from the listing (only when the digest cannot tell). */
function createdAtLookup(ctx: IPollFunctions, includeDrafts: boolean, limits: PollLimits) {
	return async () => {
		const pages = await listAllPages.call(ctx, includeDrafts ? {} : { draft: false }, limits);
		return new Map(
			pages
				.filter((page) => typeof page.url === 'string' && typeof page.created_at === 'string')
				.map((page) => [page.url as string, page.created_at as string]),
		);
	};
}

/** Fetch Test Event: the newest page, as if it had just changed. */
function sampleOf(snapshot: Snapshot, events: PageEvent[]): PageChange[] {
	const newest = snapshot.pages.reduce<Snapshot['pages'][number] | undefined>(
		(best, page) => (!best || timeOf(page.updated_at) > timeOf(best.updated_at) ? page : best),
		undefined,
	);
	if (!newest) return [];
	const event = events.includes('pageUpdated') ? 'pageUpdated' : events[0];
	return [
		{
			event,
			url: newest.url,
			name: newest.name,
			locale: newest.locale,
			updated_at: event === 'pageRemoved' ? snapshot.generatedAt : newest.updated_at,
			...(newest.draft ? { draft: true } : {}),
		},
	];
}

/** One poll: read the site, compare with the state, write the new state (not in manual mode). */
async function pollOnce(
	this: IPollFunctions,
	events: PageEvent[],
	includeDrafts: boolean,
	includeContent: boolean,
	manual: boolean,
	limits: PollLimits,
): Promise<INodeExecutionData[][] | null> {
	const staticData = this.getWorkflowStaticData('node');
	// Every request happens before the state is written: a failed poll keeps the old state, and the
	// next poll sees everything since it.
	const snapshot = await readSnapshot.call(this, includeDrafts, limits);
	const site = watchedSite(limits.target, snapshot.tenantId);
	const state = readState(staticData);
	const known = state !== undefined && state.drafts === includeDrafts && state.site === site.key;
	const detected = known
		? await detectChanges(state, snapshot, createdAtLookup(this, includeDrafts, limits))
		: undefined;
	let changes = (detected?.changes ?? []).filter((change) => events.includes(change.event));

	if (manual) {
		// Fetch Test Event shows a sample and leaves the state as it was.
		changes = changes.length > 0 ? changes.slice(-1) : sampleOf(snapshot, events);
	}
	const withPages = includeContent ? await withContent.call(this, changes, limits) : changes;
	// Every item says which site it came from.
	const output = withPages.map((change) => ({
		...change,
		tenant_id: site.tenant_id,
		site: site.site,
	})) as unknown as IDataObject[];

	// The first activation (another Include Drafts, another site) only remembers where the site stands.
	if (!manual)
		writeState(
			staticData,
			stateOf(snapshot.pages, includeDrafts, site.key, detected?.digest, snapshot.generatedAt),
		);
	if (output.length === 0) return null;
	return [this.helpers.returnJsonArray(output)];
}

/** A positive number option of Options, at most `max`; its default when unset or not positive. */
function boundedOption(ctx: IPollFunctions, name: string, fallback: number, max: number): number {
	const value = Number(ctx.getNodeParameter(`options.${name}`, fallback));
	return Number.isFinite(value) && value > 0 ? Math.min(value, max) : fallback;
}

/**
 * pollOnce within the deadline: every request of the poll is ended when it passes (the Timeout of a
 * request counts only the wait between two bytes), and the poll fails saying so. No answer longer
 * than Max Answer Size is read.
 */
async function pollWithinDeadline(
	this: IPollFunctions,
	...args: [PageEvent[], boolean, boolean, boolean]
): Promise<INodeExecutionData[][] | null> {
	const seconds = boundedOption(this, 'pollDeadline', DEFAULT_POLL_DEADLINE_S, MAX_POLL_DEADLINE_S);
	const deadline = AbortSignal.timeout(seconds * 1000);
	try {
		return await pollOnce.call(this, ...args, {
			target: await resolveTenantTarget(this),
			signal: deadline,
			maxResponseBytes: Math.round(
				boundedOption(this, 'maxAnswerMb', DEFAULT_MAX_ANSWER_MB, MAX_ANSWER_MB) * 1024 * 1024,
			),
		});
	} catch (error) {
		// Not the deadline: the poll's own node error, passed on unchanged (n8n's scanner wants no raw
		// rethrow); anything else is wrapped.
		if (!deadline.aborted)
			throw error instanceof NodeOperationError || error instanceof NodeApiError
				? error
				: new NodeOperationError(this.getNode(), error as Error);
		throw new NodeOperationError(
			this.getNode(),
			`The site did not answer within the poll deadline (${seconds} s)`,
			{
				description:
					'The poll was ended and nothing was reported; the trigger keeps its place and tries again at the next poll. A slow site or a very large sitemap can need a longer Options > Poll Deadline (Seconds).',
			},
		);
	}
}

export class SitePageTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Site Management Trigger',
		name: 'sitePageTrigger',
		icon: { light: 'file:site.svg', dark: 'file:site.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{"Pages " + $parameter["events"].map(e => ({pagePublished: "published", pageUpdated: "updated", pageRemoved: "removed"})[e]).join(", ")}}',
		description:
			'Starts the workflow when pages of a Site Management website are published, updated or removed',
		defaults: {
			name: 'Site Management Trigger',
		},
		polling: true,
		// For n8n's AI workflow builder (2.x; 1.x ignores it).
		builderHint: {
			searchHint:
				'Starts a workflow when pages of Site Management websites are created, changed, published or deleted: polls each site it watches (one trigger for many sites with a Managed Tenant credential) and emits one item per change.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-site-management.siteTenant',
					relationHint: 'Reads the changed page (Page > Get) or acts on it',
				},
			],
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'siteTenantApi',
				required: true,
				displayOptions: { show: { authentication: [TENANT_TOKEN] } },
			},
			{
				name: 'siteManagedTenantApi',
				required: true,
				displayOptions: { show: { authentication: [MANAGED_TENANT] } },
			},
		],
		properties: [
			tenantAuthenticationProperty(),
			{
				displayName:
					'Watches one site: the tenant the credential names (a Managed Tenant credential needs its Tenant ID). Each item carries tenant_id and site.',
				name: 'siteNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: EVENTS,
				default: ['pagePublished', 'pageUpdated', 'pageRemoved'],
				required: true,
				description: 'Which page changes start the workflow; each change is one item',
			},
			{
				displayName: 'Include Drafts',
				name: 'includeDrafts',
				type: 'boolean',
				default: false,
				description:
					'Whether draft pages count too (read from the page listing): a new draft is then a published page, with draft set',
			},
			{
				displayName: 'Include Content',
				name: 'includeContent',
				type: 'boolean',
				default: false,
				description:
					'Whether to read the page record (fields, templates, banner) for each change into page; one request per change',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Max Answer Size (MB)',
						name: 'maxAnswerMb',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: MAX_ANSWER_MB },
						default: DEFAULT_MAX_ANSWER_MB,
						description:
							'The largest answer a poll reads (the sitemap above all); a larger one is not read and the poll fails with an error',
					},
					{
						displayName: 'Poll Deadline (Seconds)',
						name: 'pollDeadline',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: MAX_POLL_DEADLINE_S },
						default: DEFAULT_POLL_DEADLINE_S,
						description:
							'How long one poll may take, all its requests included; a poll that takes longer is ended and fails with an error',
					},
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const events = this.getNodeParameter('events', []) as PageEvent[];
		if (!Array.isArray(events) || events.length === 0) {
			throw new NodeOperationError(this.getNode(), 'Choose at least one event in "Events"');
		}
		const includeDrafts = this.getNodeParameter('includeDrafts', false) as boolean;
		const includeContent = this.getNodeParameter('includeContent', false) as boolean;
		const manual = this.getMode() === 'manual';
		if (manual)
			return await pollWithinDeadline.call(this, events, includeDrafts, includeContent, true);
		const key = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
		if (pollsInFlight.has(key)) return null;
		pollsInFlight.add(key);
		try {
			return await pollWithinDeadline.call(this, events, includeDrafts, includeContent, false);
		} finally {
			pollsInFlight.delete(key);
		}
	}
}
