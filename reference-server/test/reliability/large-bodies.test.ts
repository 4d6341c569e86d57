/**
 * Large bodies do not hold the event loop (issue 12, point 5): their checks, parse and storage run
 * one step per turn of the event loop, one body at a time (plugins/heavy-work.ts), and a content
 * update answers with the templates it stored without reading them back.
 */
import { HeavyWork } from '../../src/plugins/heavy-work';
import { type Harness, createPage, createTenant, expectOk, useServer } from '../helpers';

let h: Harness;
useServer((started) => (h = started));

describe('HeavyWork', () => {
	it('runs steps in order, each in its own turn: other work gets in between two steps', async () => {
		const work = new HeavyWork();
		const order: string[] = [];
		const steps = [1, 2, 3].map((n) =>
			work.run(() => {
				order.push(`step ${n}`);
				// Other work that arrives during a step runs before the next step.
				setImmediate(() => order.push(`other after ${n}`));
				return n;
			}),
		);
		expect(await Promise.all(steps)).toEqual([1, 2, 3]);
		await new Promise((resolve) => setImmediate(resolve));
		expect(order).toEqual(['step 1', 'other after 1', 'step 2', 'other after 2', 'step 3', 'other after 3']);
	});

	it('a step that throws rejects its own promise only', async () => {
		const work = new HeavyWork();
		const failing = work.run(() => {
			throw new Error('bad body');
		});
		const next = work.run(() => 'fine');
		await expect(failing).rejects.toThrow('bad body');
		await expect(next).resolves.toBe('fine');
	});
});

describe('a large content update', () => {
	it('answers the page with exactly the templates stored; four at once all land', async () => {
		const t = await createTenant(h);
		const block = (i: number) => ({ type: 'text', n: i, body: 'Lorem ipsum dolor sit amet. '.repeat(20), nested: { list: [1, 'two', null, true], banner: null } });
		const templates = Array.from({ length: 1500 }, (_, i) => block(i));
		expect(JSON.stringify(templates).length).toBeGreaterThan(256 * 1024);
		await Promise.all(['/a', '/b', '/c', '/d'].map((url) => createPage(t, url)));
		const answers = await Promise.all(
			['/a', '/b', '/c', '/d'].map((url, i) => t.api.put('/api/content', { url, templates: [...templates, { page: i }], banner: { title: url } })),
		);
		for (const [i, res] of answers.entries()) {
			const body = expectOk(res);
			expect(body.message).toBe('Content updated successfully.');
			expect(body.page).toEqual(
				expect.objectContaining({ url: ['/a', '/b', '/c', '/d'][i], draft: false, banner: { title: ['/a', '/b', '/c', '/d'][i] }, templates: [...templates, { page: i }] }),
			);
			expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
		}
		const stored = expectOk(await t.api.get('/api/pages', { params: { url: '/c' } })).data[0];
		expect(stored.templates).toEqual([...templates, { page: 2 }]);
		expect(stored.updated_at).toBe(answers[2].data.page.updated_at);
		// banner absent keeps the stored one.
		const kept = expectOk(await t.api.put('/api/content', { url: '/a', templates }));
		expect(kept.page.banner).toEqual({ title: '/a' });
	});
});
