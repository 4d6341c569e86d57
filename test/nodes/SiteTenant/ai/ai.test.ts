/**
 * Tenant node, AI resource: Get Page Context hands a page to an AI step; Apply Proposal takes what
 * the AI step produced, in any accepted shape, validates it and updates the content (or, on Dry
 * Run, only shows what would change). A malformed proposal fails its item and nothing is sent.
 */
import type { INodeCredentials } from 'n8n-workflow';

import { SiteTenant } from '../../../../nodes/SiteTenant/SiteTenant.node';
import { startDelayProxy, type DelayProxy } from '../../../harness/delay-proxy';
import { byList, byUrl } from '../../../harness/locators';
import {
	readPage,
	seedPages,
	useNodeTestContext,
	type TenantContext,
} from '../../../harness/nodes';

// `siteTenantTool`: the node under the type name of the tool form n8n derives from `usableAsTool`.
const ctx = useNodeTestContext({}, { siteTenantTool: new SiteTenant() });

let tenant: TenantContext;
let proxy: DelayProxy;
let viaProxy: INodeCredentials;

const ORIGINAL = {
	templates: [
		{ type: 'heading', text: 'About us' },
		{ type: 'text', text: 'We make\nthings.' },
	],
	banner: { title: 'Old banner' },
};

beforeAll(async () => {
	tenant = await ctx.tenant('ai');
	proxy = await startDelayProxy(() => ctx.site.url);
	viaProxy = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: proxy.url,
		token: tenant.token,
	});
	await seedPages(tenant.client, [
		{ url: '/about', name: 'About', locale: 'en' },
		{ url: '/empty', name: 'Empty', locale: 'de', draft: true },
	]);
	expect((await tenant.client.put('/api/content', { url: '/about', ...ORIGINAL })).status).toBe(
		200,
	);
	// One page per accepted shape, so each application can be checked on its own page.
	await seedPages(
		tenant.client,
		SHAPES.map(([name]) => ({ url: `/shape/${slug(name)}`, name })),
	);
});
afterAll(async () => {
	await proxy?.close();
});

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/**
 * Most tests here are about reading proposals, not the guard (guard.test.ts): they name the page in
 * Page and turn Require Page Version off, as a workflow with no version does.
 */
const namedPage = (url: string) => ({ url: byUrl(url), requireVersion: false });

/** The version Get Page Context gives for `url` (sealed: siteVersion.ts). */
async function contextVersion(url: string): Promise<string> {
	const context = await tenant.run({
		resource: 'ai',
		operation: 'getPageContext',
		url: byUrl(url),
	});
	expect(context.error).toBeUndefined();
	return context.items[0].json.version as string;
}

/** The page's updated_at a sealed version holds. */
const updatedAtOf = (version: string) => version.slice(0, version.lastIndexOf('~'));

describe('Get Page Context', () => {
	test('outputs the page fields, its content and a prompt-ready text with answer instructions', async () => {
		const result = await tenant.run({
			resource: 'ai',
			operation: 'getPageContext',
			url: byUrl('/about'),
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const context = result.items[0].json;
		expect(context).toMatchObject({
			url: '/about',
			name: 'About',
			locale: 'en',
			meta_title: null,
			meta_description: null,
			draft: false,
			templates: ORIGINAL.templates,
			banner: ORIGINAL.banner,
			updated_at: expect.any(String),
		});
		expect(context).not.toHaveProperty('prompt_context');
		const text = context.prompt as string;
		expect(text.split('\n')).toEqual(
			expect.arrayContaining([
				'Page: /about',
				'name: About',
				'locale: en',
				'Templates (2):',
				`1. ${JSON.stringify(ORIGINAL.templates[0])}`,
				`2. ${JSON.stringify(ORIGINAL.templates[1])}`,
				`Banner: ${JSON.stringify(ORIGINAL.banner)}`,
			]),
		);
		expect(text).toMatch(/Answer with only a JSON object.*"url": "\/about"/);
	});

	test('without instructions, for an empty page; a missing page fails the item', async () => {
		const result = await tenant.run({
			resource: 'ai',
			operation: 'getPageContext',
			url: byList('/empty'),
			includeInstructions: false,
		});
		expect(result.error).toBeUndefined();
		const context = result.items[0].json;
		expect(context).toMatchObject({
			url: '/empty',
			templates: [],
			banner: null,
			draft: true,
			locale: 'de',
		});
		expect(context.prompt).toContain('Templates (0):');
		expect(context.prompt).toContain('Banner: null');
		expect(context.prompt).not.toMatch(/Answer with only/);

		const missing = await tenant.run(
			{ resource: 'ai', operation: 'getPageContext', url: byUrl('/missing') },
			{ continueOnFail: true },
		);
		expect(missing.items).toEqual([
			{
				json: { error: 'No page with url "/missing"', details: expect.any(String) },
				pairedItem: { item: 0 },
			},
		]);
	});
});

/** What an AI step could hand over for a page: [label, value of the item's `proposal` field]. */
type Shape = [string, (url: string, templates: unknown[], banner?: unknown) => unknown];
const SHAPES: Shape[] = [
	['object', (url, templates, banner) => ({ url, templates, banner })],
	['JSON string', (url, templates, banner) => JSON.stringify({ url, templates, banner })],
	[
		'double-encoded JSON string',
		(url, templates) => JSON.stringify(JSON.stringify({ url, templates })),
	],
	[
		'fenced json block with prose',
		(url, templates, banner) =>
			`Sure! Here is the improved page:\n\n\`\`\`json\n${JSON.stringify({ url, templates, banner }, null, 2)}\n\`\`\`\n\nLet me know if you need more.`,
	],
	['unlabelled fence', (url, templates) => `\`\`\`\n${JSON.stringify({ url, templates })}\n\`\`\``],
	[
		'bare object among prose',
		(url, templates) => `Proposal: ${JSON.stringify({ url, templates })} -- done.`,
	],
	[
		'OpenAI chat completion',
		(url, templates, banner) => ({
			id: 'chatcmpl-1',
			object: 'chat.completion',
			choices: [
				{
					index: 0,
					finish_reason: 'stop',
					message: {
						role: 'assistant',
						content: `\`\`\`json\n${JSON.stringify({ url, templates, banner })}\n\`\`\``,
					},
				},
			],
			usage: { total_tokens: 42 },
		}),
	],
	[
		'message with content',
		(url, templates) => ({
			message: { role: 'assistant', content: JSON.stringify({ url, templates }) },
		}),
	],
	[
		'n8n AI agent output',
		(url, templates) => ({
			output: `Here it is:\n\`\`\`json\n${JSON.stringify({ url, templates })}\n\`\`\``,
		}),
	],
	['n8n text output', (url, templates) => ({ text: JSON.stringify({ url, templates }) })],
	[
		'Anthropic message',
		(url, templates) => ({
			role: 'assistant',
			content: [{ type: 'text', text: JSON.stringify({ url, templates }) }],
		}),
	],
	[
		'OpenAI Responses output',
		(url, templates) => ({
			output: [
				{ type: 'reasoning', summary: [] },
				{
					type: 'message',
					content: [{ type: 'output_text', text: JSON.stringify({ url, templates }) }],
				},
			],
		}),
	],
	[
		'Gemini candidates',
		(url, templates) => ({
			candidates: [{ content: { parts: [{ text: JSON.stringify({ url, templates }) }] } }],
		}),
	],
];

describe('Apply Proposal: every accepted shape updates the page', () => {
	test.each(SHAPES)('%s', async (name, make) => {
		const url = `/shape/${slug(name)}`;
		const templates = [
			{ type: 'text', text: `applied from ${name}` },
			{ type: 'cta', label: 'Go', nested: { a: [1, 2] } },
		];
		const result = await tenant.run(
			{
				resource: 'ai',
				operation: 'applyProposal',
				proposalSource: 'field',
				proposalField: 'proposal',
				...namedPage(url),
			},
			{
				input: [{ json: { proposal: make(url, templates, { title: `banner ${name}` }) as never } }],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		// The output is the updated page itself.
		expect(result.items[0].json).toMatchObject({ url, name, templates });
		expect(result.items[0].json).not.toHaveProperty('page');
		expect((await readPage(tenant.client, url))?.templates).toEqual(templates);
	});

	test('a chat completion read from a dot path, the whole item, or the JSON parameter', async () => {
		await seedPages(tenant.client, [{ url: '/path-1' }, { url: '/path-2' }, { url: '/path-3' }]);
		const completion = (url: string) => ({
			choices: [
				{ message: { content: JSON.stringify({ url, templates: [{ type: 'text', text: url }] }) } },
			],
		});

		const byPath = await tenant.run(
			{
				resource: 'ai',
				operation: 'applyProposal',
				proposalField: 'llm.choices[0].message.content',
				...namedPage('/path-1'),
			},
			{ input: [{ json: { llm: completion('/path-1') } }] },
		);
		expect(byPath.error).toBeUndefined();

		const wholeItem = await tenant.run(
			{ resource: 'ai', operation: 'applyProposal', proposalField: '', ...namedPage('/path-2') },
			{ input: [{ json: completion('/path-2') }] },
		);
		expect(wholeItem.error).toBeUndefined();

		const parameter = await tenant.run({
			resource: 'ai',
			operation: 'applyProposal',
			proposalSource: 'json',
			proposalJson: JSON.stringify({
				url: '/path-3',
				templates: [{ type: 'text', text: '/path-3' }],
			}),
			...namedPage('/path-3'),
		});
		expect(parameter.error).toBeUndefined();

		for (const url of ['/path-1', '/path-2', '/path-3']) {
			expect((await readPage(tenant.client, url))?.templates).toEqual([
				{ type: 'text', text: url },
			]);
		}
	});

	test('a proposal without url takes the Page URL parameter; the banner is kept when the proposal has none, cleared when null', async () => {
		await seedPages(tenant.client, [{ url: '/banners' }]);
		await tenant.client.put('/api/content', {
			url: '/banners',
			templates: [],
			banner: { title: 'Keep' },
		});

		const keep = await tenant.run(
			{ resource: 'ai', operation: 'applyProposal', ...namedPage('/banners') },
			{ input: [{ json: { proposal: { templates: [{ type: 'text', text: 'one' }] } } }] },
		);
		expect(keep.error).toBeUndefined();
		expect(await readPage(tenant.client, '/banners')).toMatchObject({
			templates: [{ type: 'text', text: 'one' }],
			banner: { title: 'Keep' },
		});

		const clear = await tenant.run(
			{
				resource: 'ai',
				operation: 'applyProposal',
				...namedPage('/banners'),
				url: byList('/banners'),
			},
			{
				input: [
					{
						json: {
							proposal: { url: '/banners', templates: [], banner: null, reasoning: 'shorter' },
						},
					},
				],
			},
		);
		expect(clear.error).toBeUndefined();
		expect(clear.items[0].json.ignoredFields).toEqual(['reasoning']);
		expect(await readPage(tenant.client, '/banners')).toMatchObject({
			templates: [],
			banner: null,
		});
	});
});

describe('Apply Proposal: Dry Run', () => {
	test('sends nothing (only reads the page) and shows before and after', async () => {
		const before = await readPage(tenant.client, '/about');
		const first = proxy.log.length;
		const proposal = {
			url: '/about',
			templates: [ORIGINAL.templates[0], { type: 'text', text: 'We make better things.' }],
		};
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials: viaProxy,
			parameters: {
				resource: 'ai',
				operation: 'applyProposal',
				dryRun: true,
				...namedPage('/about'),
			},
			input: [{ json: { proposal } }],
		});
		expect(result.error).toBeUndefined();
		// The input item goes on, with what would change under dryRun.
		expect(result.items[0].json).toEqual({
			proposal,
			dryRun: {
				url: '/about',
				changes: {
					templates: { before: ORIGINAL.templates, after: proposal.templates, changed: true },
					banner: { before: ORIGINAL.banner, after: ORIGINAL.banner, changed: false },
				},
				wouldSend: proposal,
				// No version given: nothing to check.
				version: null,
			},
		});
		expect(proxy.log.slice(first).map((request) => request.method)).toEqual(['GET']);
		expect(await readPage(tenant.client, '/about')).toEqual(before);
	});

	test('an identical proposal shows no change; a dry run for a missing page fails', async () => {
		const same = await tenant.run(
			{ resource: 'ai', operation: 'applyProposal', dryRun: true, ...namedPage('/about') },
			{ input: [{ json: { proposal: { url: '/about', ...ORIGINAL } } }] },
		);
		expect((same.items[0].json.dryRun as Record<string, unknown>).changes).toMatchObject({
			templates: { changed: false },
			banner: { changed: false },
		});

		const missing = await tenant.run(
			{ resource: 'ai', operation: 'applyProposal', dryRun: true, ...namedPage('/nowhere') },
			{ input: [{ json: { proposal: { url: '/nowhere', templates: [] } } }] },
		);
		expect(missing.error?.message).toBe('No page with url "/nowhere"');
	});
});

describe('Apply Proposal: malformed proposals fail the item and nothing is sent', () => {
	const cases: Array<[string, unknown, RegExp]> = [
		[
			'bad JSON in a code block',
			'```json\n{"url": "/about", "templates": [}\n```',
			/code block in the proposal text is not valid JSON/,
		],
		['bad JSON text', '{"url": "/about", "templates": [{"a": 1},]}', /not valid JSON/],
		[
			'cut-off JSON',
			'Here: {"url": "/about", "templates": [{"a": 1}',
			/incomplete \(no closing brace\)/,
		],
		['no JSON at all', 'I could not improve this page, sorry.', /No JSON object found/],
		[
			'templates not an array',
			{ url: '/about', templates: { type: 'text' } },
			/Proposal templates must be an array, got an object/,
		],
		['templates missing', { url: '/about', banner: null }, /Proposal is missing "templates"/],
		[
			'an element not an object',
			{ url: '/about', templates: [{ type: 'text' }, 'plain text'] },
			/Proposal templates\[1\] must be an object, got a string/,
		],
		['url missing', { templates: [] }, /Proposal is missing "url"/],
		['url not a path', { url: 'about', templates: [] }, /Proposal url must start with "\/"/],
		[
			'banner not an object',
			{ url: '/about', templates: [], banner: 'Big sale' },
			/Proposal banner must be an object or null, got a string/,
		],
		['a JSON array', JSON.stringify([1, 2]), /No proposal found in the array/],
		['an empty string', '', /The proposal is empty/],
		[
			'a chat completion with a malformed proposal',
			{ choices: [{ message: { content: '{"url": "/about", "templates": "none"}' } }] },
			/Proposal templates must be an array, got a string/,
		],
	];

	test.each(cases)('%s', async (_label, proposal, message) => {
		const before = await readPage(tenant.client, '/about');
		const first = proxy.log.length;
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials: viaProxy,
			parameters: { resource: 'ai', operation: 'applyProposal' },
			input: [{ json: { proposal: proposal as never } }],
		});
		expect(result.items).toHaveLength(0);
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toMatch(/Nothing was sent/);
		expect(proxy.log.slice(first)).toEqual([]);
		expect(await readPage(tenant.client, '/about')).toEqual(before);
	});

	test('every problem is listed at once', async () => {
		const result = await tenant.run(
			{ resource: 'ai', operation: 'applyProposal' },
			{ input: [{ json: { proposal: { templates: [1], banner: [] } } }] },
		);
		expect(result.error?.message).toContain('Proposal is missing "url"');
		expect(result.error?.message).toContain(
			'Proposal templates[0] must be an object, got a number',
		);
		expect(result.error?.message).toContain(
			'Proposal banner must be an object or null, got an array',
		);
	});

	test('a proposal for another page than the Page URL parameter fails', async () => {
		const result = await tenant.run(
			{ resource: 'ai', operation: 'applyProposal', url: byUrl('/empty') },
			{ input: [{ json: { proposal: { url: '/about', templates: [] } } }] },
		);
		expect(result.error?.message).toBe(
			'No usable proposal in the input field "proposal": Proposal url "/about" does not match the URL parameter "/empty"',
		);
	});

	test('a missing input field is named', async () => {
		const result = await tenant.run(
			{ resource: 'ai', operation: 'applyProposal', proposalField: 'choices[0].message.content' },
			{ input: [{ json: { choices: [] } }] },
		);
		expect(result.error?.message).toBe('The input item has no field "choices[0].message.content"');
	});
});

test('Continue On Fail: bad proposals become error items paired to their input, good ones are applied', async () => {
	await seedPages(tenant.client, [{ url: '/cof-0' }, { url: '/cof-2' }]);
	const result = await tenant.run(
		{
			resource: 'ai',
			operation: 'applyProposal',
			options: { batching: { batch: { batchSize: 2 } } },
			...namedPage('={{ $json.page }}'),
		},
		{
			continueOnFail: true,
			input: [
				{ json: { page: '/cof-0', proposal: { url: '/cof-0', templates: [{ n: 0 }] } } },
				{ json: { page: '/cof-1', proposal: '```json\n{"url": "/cof-1", "templates": [\n```' } },
				{
					json: {
						page: '/cof-2',
						proposal: JSON.stringify({ url: '/cof-2', templates: [{ n: 2 }] }),
					},
				},
				{ json: { page: '/cof-3', proposal: { url: '/cof-3', templates: 'x' } } },
			],
		},
	);
	expect(result.error).toBeUndefined();
	expect(result.items.map((item) => [item.pairedItem, item.json.error ?? item.json.url])).toEqual([
		[{ item: 0 }, '/cof-0'],
		[{ item: 1 }, expect.stringMatching(/not valid JSON/)],
		[{ item: 2 }, '/cof-2'],
		[
			{ item: 3 },
			'No usable proposal in the input field "proposal": Proposal templates must be an array, got a string',
		],
	]);
	expect((await readPage(tenant.client, '/cof-0'))?.templates).toEqual([{ n: 0 }]);
	expect((await readPage(tenant.client, '/cof-2'))?.templates).toEqual([{ n: 2 }]);
});

test('a round trip: page context in, a model answer out, applied', async () => {
	await seedPages(tenant.client, [{ url: '/round-trip', name: 'Round trip' }]);
	const context = await tenant.run({
		resource: 'ai',
		operation: 'getPageContext',
		url: byUrl('/round-trip'),
	});
	const page = context.items[0].json;
	// What a model would answer, given the prompt context.
	const answer = {
		choices: [
			{
				message: {
					content: `Here you go:\n\`\`\`json\n${JSON.stringify({ url: page.url, version: page.version, templates: [{ type: 'text', text: `Welcome to ${String(page.name)}` }], banner: null })}\n\`\`\``,
				},
			},
		],
	};
	const applied = await tenant.run(
		{ resource: 'ai', operation: 'applyProposal', proposalField: '' },
		{ input: [{ json: answer }] },
	);
	expect(applied.error).toBeUndefined();
	expect((await readPage(tenant.client, '/round-trip'))?.templates).toEqual([
		{ type: 'text', text: 'Welcome to Round trip' },
	]);
});

describe('reads what n8n AI nodes output', () => {
	/** A proposal as a model answers Get Page Context's prompt: its url and version given back. */
	const proposalFor = (url: string, text: string, version: string) => ({
		url,
		version,
		templates: [{ type: 'text', text }],
		banner: null,
	});
	const fenced = (value: unknown) =>
		`Here is the proposal:\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;
	const OUTPUTS: Array<[string, (proposal: object) => Record<string, unknown>]> = [
		['Basic LLM Chain text (fenced)', (proposal) => ({ text: fenced(proposal) })],
		['Basic LLM Chain text (bare JSON)', (proposal) => ({ text: JSON.stringify(proposal) })],
		['AI Agent output', (proposal) => ({ output: fenced(proposal) })],
		[
			'OpenAI node output (v2, simplified)',
			(proposal) => ({
				output: [
					{
						type: 'message',
						role: 'assistant',
						content: [{ type: 'output_text', text: fenced(proposal) }],
					},
				],
			}),
		],
		[
			'OpenAI node message (v1)',
			(proposal) => ({
				index: 0,
				message: { role: 'assistant', content: JSON.stringify(proposal) },
			}),
		],
		[
			'a raw chat completion',
			(proposal) => ({ choices: [{ message: { content: fenced(proposal) } }] }),
		],
		['a proposal field', (proposal) => ({ proposal })],
	];

	test.each(OUTPUTS)(
		'Apply Proposal reads %s with its default Proposal Field',
		async (name, output) => {
			const url = `/ai-nodes/${slug(name)}`;
			await seedPages(tenant.client, [{ url }]);
			const version = await contextVersion(url);
			const result = await tenant.run(
				{ resource: 'ai', operation: 'applyProposal' },
				{ input: [{ json: output(proposalFor(url, name, version)) as never }] },
			);
			expect(result.error).toBeUndefined();
			expect((await readPage(tenant.client, url))?.templates).toEqual([
				{ type: 'text', text: name },
			]);
		},
	);

	test('an unreadable proposal: the error names the field read and what was wrong; nothing is sent', async () => {
		const before = await readPage(tenant.client, '/about');
		const first = proxy.log.length;
		const cases: Array<[Record<string, unknown>, string]> = [
			[
				{ text: 'I would rather not.' },
				'No usable proposal in the input field "text": No JSON object found in the proposal text',
			],
			[
				{ output: '{"url": "/about", "templates": "none"}' },
				'No usable proposal in the input field "output": Proposal templates must be an array, got a string',
			],
			[
				{ choices: [{ message: { content: '```json\n{"url": \n```' } }] },
				'No usable proposal in the input field "choices[0].message.content": The code block in the proposal text is not valid JSON',
			],
		];
		for (const [json, message] of cases) {
			const result = await ctx.runner.runNode({
				type: 'siteTenant',
				credentials: viaProxy,
				parameters: { resource: 'ai', operation: 'applyProposal' },
				input: [{ json: json as never }],
			});
			expect(result.error?.message).toContain(message);
			expect(result.error?.description).toMatch(/Nothing was sent/);
		}
		const parameter = await tenant.run({
			resource: 'ai',
			operation: 'applyProposal',
			proposalSource: 'json',
			proposalJson: '{"templates": []}',
		});
		expect(parameter.error?.message).toBe(
			'No usable proposal in the parameter "Proposal JSON": Proposal is missing "url" (the page path, e.g. "/about-us")',
		);
		expect(proxy.log.slice(first)).toEqual([]);
		expect(await readPage(tenant.client, '/about')).toEqual(before);
	});

	test('a dry run passes its input through with the changes, and an Apply after it applies the same proposal', async () => {
		await seedPages(tenant.client, [{ url: '/ai-nodes/dry' }]);
		await tenant.client.put('/api/content', {
			url: '/ai-nodes/dry',
			templates: [{ type: 'text', text: 'old' }],
		});
		const version = await contextVersion('/ai-nodes/dry');
		const proposal = proposalFor('/ai-nodes/dry', 'new', version);
		const answer = { text: fenced(proposal), other: 'kept' };
		const dry = await tenant.run(
			{ resource: 'ai', operation: 'applyProposal', dryRun: true },
			{ input: [{ json: answer }] },
		);
		expect(dry.error).toBeUndefined();
		expect(dry.items[0].json).toEqual({
			...answer,
			dryRun: {
				url: '/ai-nodes/dry',
				changes: {
					templates: {
						before: [{ type: 'text', text: 'old' }],
						after: [{ type: 'text', text: 'new' }],
						changed: true,
					},
					banner: { before: null, after: null, changed: false },
				},
				wouldSend: { url: '/ai-nodes/dry', templates: proposal.templates, banner: null },
				version: { proposal: updatedAtOf(version), page: updatedAtOf(version), unchanged: true },
			},
		});
		expect((await readPage(tenant.client, '/ai-nodes/dry'))?.templates).toEqual([
			{ type: 'text', text: 'old' },
		]);

		const apply = await tenant.run(
			{ resource: 'ai', operation: 'applyProposal' },
			{ input: dry.items.map((item) => ({ json: item.json })) },
		);
		expect(apply.error).toBeUndefined();
		expect((await readPage(tenant.client, '/ai-nodes/dry'))?.templates).toEqual([
			{ type: 'text', text: 'new' },
		]);
	});

	test('Get Page Context hands out the whole prompt: task, page, templates, banner and the JSON schema of the answer', async () => {
		const result = await tenant.run({
			resource: 'ai',
			operation: 'getPageContext',
			url: byUrl('/about'),
		});
		expect(result.error).toBeUndefined();
		const context = result.items[0].json;
		expect(context).toMatchObject({
			url: '/about',
			templates: ORIGINAL.templates,
			banner: ORIGINAL.banner,
		});
		expect(context.prompt_context).toBeUndefined();
		const prompt = context.prompt as string;
		const lines = prompt.split('\n');
		expect(lines[0]).toBe(
			'Improve the content of the web page /about: clearer and friendlier, keeping its facts.',
		);
		expect(lines).toEqual(
			expect.arrayContaining([
				'Page: /about',
				`1. ${JSON.stringify(ORIGINAL.templates[0])}`,
				`Banner: ${JSON.stringify(ORIGINAL.banner)}`,
			]),
		);
		const schemaLine = lines.find((line) => line.startsWith('JSON schema of the answer: '));
		const schema = JSON.parse(String(schemaLine).slice('JSON schema of the answer: '.length));
		// The version is the page's updated_at with the seal (siteVersion.ts), asked back unchanged.
		const { updated_at: updatedAt } = (await readPage(tenant.client, '/about')) as {
			updated_at: string;
		};
		const version = context.version as string;
		expect(updatedAtOf(version)).toBe(updatedAt);
		expect(context.updated_at).toBe(updatedAt);
		expect(schema).toMatchObject({
			type: 'object',
			required: ['url', 'version', 'templates', 'banner'],
			properties: { url: { const: '/about' }, version: { const: version } },
		});

		const bare = await tenant.run({
			resource: 'ai',
			operation: 'getPageContext',
			url: byUrl('/about'),
			includeInstructions: false,
		});
		expect(bare.items[0].json.prompt).not.toContain('JSON schema');
		expect(bare.items[0].json.prompt).toContain('Page: /about');
	});

	test("as an agent's tool, outputs stay compact: the context is its prompt, an apply says it worked", async () => {
		await seedPages(tenant.client, [{ url: '/ai-nodes/tool' }]);
		// An agent fills the Page parameter with a plain string.
		const asTool = (parameters: Record<string, unknown>) =>
			tenant.run(parameters as never, { type: 'siteTenantTool' });
		const context = await asTool({
			resource: 'ai',
			operation: 'getPageContext',
			url: '/ai-nodes/tool',
		});
		expect(Object.keys(context.items[0].json).sort()).toEqual(['prompt', 'url', 'version']);
		expect(context.items[0].json.prompt).toContain('JSON schema of the answer');
		const proposalJson = JSON.stringify(
			proposalFor('/ai-nodes/tool', 'by a tool', context.items[0].json.version as string),
		);
		const applied = await asTool({
			resource: 'ai',
			operation: 'applyProposal',
			proposalSource: 'json',
			proposalJson,
		});
		expect(applied.items[0].json).toEqual({
			message: 'Content updated successfully.',
			url: '/ai-nodes/tool',
			updated_at: expect.any(String),
		});
		expect((await readPage(tenant.client, '/ai-nodes/tool'))?.templates).toEqual([
			{ type: 'text', text: 'by a tool' },
		]);
	});
});
