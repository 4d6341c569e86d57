/**
 * The node in n8n's engine, the same requests through n8n's own HTTP helper in a bare node, and the
 * same requests as a plain loop of fetch calls: the contestants of the page rows.
 */
import { randomUUID } from 'crypto';

import type { INodeCredentials, INodeParameters } from 'n8n-workflow';

import type { WorkflowRunner } from '../../test/harness/workflow-runner';
import { timed } from './stats';

export const pageItems = (
	prefix: string,
	count: number,
): Array<{ json: { name: string; url: string } }> =>
	Array.from({ length: count }, (_, i) => ({
		json: { name: `Page ${prefix} ${i}`, url: `/${prefix}/page-${i}` },
	}));

/** Page > Create with Name and URL taken from the item; no Concurrency: the node version's default. */
export function pageCreateParameters(concurrency?: number): INodeParameters {
	return {
		resource: 'page',
		operation: 'create',
		name: '={{ $json.name }}',
		url: '={{ $json.url }}',
		locale: 'en',
		options: concurrency === undefined ? {} : { concurrency },
	};
}

/**
 * Page > Create for every item, with Options > Concurrency; parameters are
 * expressions over the item, as in a real workflow.
 */
export async function nodeCreatePages(
	runner: WorkflowRunner,
	credentials: INodeCredentials,
	prefix: string,
	count: number,
	concurrency = 1,
) {
	const { result, ms } = await timed(() =>
		runner.runNode({
			type: 'siteTenant',
			parameters: pageCreateParameters(concurrency),
			credentials,
			input: pageItems(prefix, count),
		}),
	);
	if (result.error) throw result.error;
	if (result.items.length !== count)
		throw new Error(`node created ${result.items.length} of ${count} pages`);
	return ms;
}

/** The same requests through n8n's own HTTP helper in a bare node (lib/http-baseline.node.ts). */
export async function helperCreatePages(
	runner: WorkflowRunner,
	credentials: INodeCredentials,
	prefix: string,
	count: number,
	concurrency = 1,
) {
	const { result, ms } = await timed(() =>
		runner.runNode({
			type: 'benchHttpBaseline',
			parameters: { name: '={{ $json.name }}', url: '={{ $json.url }}', locale: 'en', concurrency },
			credentials,
			input: pageItems(prefix, count),
		}),
	);
	if (result.error) throw result.error;
	if (result.items.length !== count || !(result.items[0].json as { page?: unknown }).page)
		throw new Error('HTTP baseline node did not create the pages');
	return ms;
}

/**
 * The fair baseline: the same requests one after the other (method, path, JSON body, bearer token,
 * Accept and Content-Type, a fresh Idempotency-Key per item), each answer read and parsed as JSON.
 */
export async function fetchCreatePages(base: string, token: string, prefix: string, count: number) {
	const items = pageItems(prefix, count);
	const { ms } = await timed(async () => {
		for (const { json } of items) {
			const response = await fetch(`${base}/api/page`, {
				method: 'POST',
				headers: {
					authorization: `Bearer ${token}`,
					accept: 'application/json',
					'content-type': 'application/json',
					'idempotency-key': randomUUID(),
				},
				body: JSON.stringify({ name: json.name, url: json.url, locale: 'en' }),
			});
			const body = (await response.json()) as { page?: unknown };
			if (response.status !== 201 || !body.page)
				throw new Error(`fetch create: HTTP ${response.status}`);
		}
	});
	return ms;
}

/** Page > Get Many, Return All; `concurrency` pages are fetched at once after the first. */
export async function nodeListPages(
	runner: WorkflowRunner,
	credentials: INodeCredentials,
	expected: number,
	concurrency = 1,
) {
	const { result, ms } = await timed(() =>
		runner.runNode({
			type: 'siteTenant',
			parameters: {
				resource: 'page',
				operation: 'getAll',
				returnAll: true,
				options: { concurrency },
			},
			credentials,
		}),
	);
	if (result.error) throw result.error;
	if (result.items.length !== expected)
		throw new Error(`node listed ${result.items.length} of ${expected} pages`);
	return ms;
}

export async function helperListPages(
	runner: WorkflowRunner,
	credentials: INodeCredentials,
	expected: number,
) {
	const { result, ms } = await timed(() =>
		runner.runNode({ type: 'benchHttpBaseline', parameters: { mode: 'list' }, credentials }),
	);
	if (result.error) throw result.error;
	if (result.items.length !== expected)
		throw new Error(`HTTP baseline node listed ${result.items.length} of ${expected} pages`);
	return ms;
}

/** Pages of 100 (what the node asks for) until meta.last_page, every page parsed and collected. */
export async function fetchListPages(base: string, token: string, expected: number) {
	const { result, ms } = await timed(async () => {
		const pages: unknown[] = [];
		for (let page = 1; ; page++) {
			const response = await fetch(`${base}/api/pages?page=${page}&per_page=100`, {
				headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
			});
			const body = (await response.json()) as { data: unknown[]; meta: { last_page: number } };
			if (response.status !== 200) throw new Error(`fetch list: HTTP ${response.status}`);
			pages.push(...body.data);
			if (page >= body.meta.last_page) return pages;
		}
	});
	if (result.length !== expected)
		throw new Error(`fetch listed ${result.length} of ${expected} pages`);
	return ms;
}
