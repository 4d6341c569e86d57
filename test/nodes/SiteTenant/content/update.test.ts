/** Tenant node, Content > Update. */
import { byUrl } from '../../../harness/locators';
import {
	readPage,
	seedPages,
	useNodeTestContext,
	type TenantContext,
} from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('Content > Update', () => {
	let tenant: TenantContext;
	beforeAll(async () => {
		tenant = await ctx.tenant('content');
		await seedPages(tenant.client, [{ url: '/home', name: 'Home' }, { url: '/other' }]);
	});

	const update = (parameters: Record<string, unknown>, extra = {}) =>
		tenant.run(
			{ resource: 'content', operation: 'update', url: byUrl('/home'), ...parameters },
			extra,
		);

	test('replaces templates and banner and outputs the updated page', async () => {
		const templates = [
			{ type: 'heading', text: 'Welcome' },
			{ type: 'text', text: 'Ünïcödé ✓', nested: { list: [1, 2, 3] } },
		];
		const result = await update({
			templates: JSON.stringify(templates),
			banner: '{"title": "Spring sale", "image": "https://x.example/b.jpg"}',
		});
		expect(result.error).toBeUndefined();
		// The output is the page itself, as the service saved it.
		expect(result.items[0].json).toMatchObject({
			url: '/home',
			name: 'Home',
			templates,
			banner: { title: 'Spring sale', image: 'https://x.example/b.jpg' },
		});
		expect(result.items[0].json).not.toHaveProperty('page');
		expect(await readPage(tenant.client, '/home')).toMatchObject({
			templates,
			banner: { title: 'Spring sale' },
		});
	});

	test('an empty banner keeps the current one; "null" and Clear Banner remove it', async () => {
		await tenant.client.put('/api/content', {
			url: '/home',
			templates: [],
			banner: { title: 'Keep me' },
		});

		expect(
			(await update({ templates: '[{"type":"text","text":"one"}]', banner: '' })).error,
		).toBeUndefined();
		expect(await readPage(tenant.client, '/home')).toMatchObject({
			templates: [{ type: 'text', text: 'one' }],
			banner: { title: 'Keep me' },
		});

		expect(
			(await update({ templates: '[{"type":"text","text":"two"}]', banner: 'null' })).error,
		).toBeUndefined();
		expect(await readPage(tenant.client, '/home')).toMatchObject({
			templates: [{ type: 'text', text: 'two' }],
			banner: null,
		});

		await tenant.client.put('/api/content', {
			url: '/home',
			templates: [],
			banner: { title: 'Again' },
		});
		expect(
			(
				await update({
					templates: '[{"type":"text","text":"three"}]',
					clearBanner: true,
					banner: '{"title":"ignored"}',
				})
			).error,
		).toBeUndefined();
		expect(await readPage(tenant.client, '/home')).toMatchObject({
			templates: [{ type: 'text', text: 'three' }],
			banner: null,
		});
	});

	test('templates may come from an expression as an array', async () => {
		const result = await update(
			{
				url: byUrl('={{ $json.url }}'),
				templates: '={{ $json.blocks }}',
				banner: '={{ $json.banner }}',
			},
			{
				input: [
					{
						json: {
							url: '/other',
							blocks: [{ type: 'quote', text: 'q' }],
							banner: { title: 'from item' },
						},
					},
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(await readPage(tenant.client, '/other')).toMatchObject({
			templates: [{ type: 'quote', text: 'q' }],
			banner: { title: 'from item' },
		});
	});

	test.each([
		[
			'templates not JSON',
			{ templates: '[{"type": "text",]' },
			/^Templates must be a JSON array of objects; it is not valid JSON/,
		],
		[
			'templates an object',
			{ templates: '{"type": "text"}' },
			/^Templates must be a JSON array of objects$/,
		],
		[
			'templates with a string entry',
			{ templates: '[{"type": "text"}, "oops"]' },
			/^Templates must be a JSON array of objects$/,
		],
		['templates blank text', { templates: '  ' }, /^Templates is required$/],
		[
			'banner an array',
			{ templates: '[{"type": "text"}]', banner: '[{"title": "x"}]' },
			/^Banner must be a JSON object$/,
		],
		[
			'banner not JSON',
			{ templates: '[{"type": "text"}]', banner: '{title: x}' },
			/^Banner must be a JSON object; it is not valid JSON/,
		],
	])('%s fails before anything is sent', async (_label, parameters, message) => {
		await tenant.client.put('/api/content', {
			url: '/home',
			templates: [{ type: 'text', text: 'stable' }],
			banner: { title: 'stable' },
		});
		const before = await readPage(tenant.client, '/home');

		const result = await update(parameters);
		expect(result.items).toHaveLength(0);
		expect(result.error?.message).toMatch(message);
		// Nothing reached the server: the page is exactly as it was (updated_at included).
		expect(await readPage(tenant.client, '/home')).toEqual(before);
	});

	test('the entry that is not an object is named', async () => {
		const result = await update({ templates: '[{"a": 1}, {"b": 2}, 3]' }, { continueOnFail: true });
		expect(result.items[0].json).toEqual({
			error: 'Templates must be a JSON array of objects',
			details: 'Entry 2 is a number.',
		});
	});

	test('content of a page that does not exist: the server answers 404', async () => {
		const result = await update({ url: byUrl('/nowhere'), templates: '[{"type": "text"}]' });
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toMatch(/not found/i);
	});
});
