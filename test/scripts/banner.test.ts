/** The `npm start` banner points at the stack.json the tokens really are in (SITE_START_DATA moves it). */
import path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { banner, shownPath } = require('../../scripts/lib/banner');

const ROOT = path.join(__dirname, '..', '..');

const text = (stateFile: string) =>
	banner({
		n8nUrl: 'http://127.0.0.1:5678',
		owner: { email: 'owner@example.com', password: 'pw' },
		ownerNote: 'set up now',
		queueLines: [],
		serverUrl: 'http://127.0.0.1:4010',
		webhook: undefined,
		aiUrl: 'http://127.0.0.1:4011/v1',
		realAi: false,
		queue: false,
		stateFile,
	});

test('inside the checkout the path is shown relative to it; elsewhere in full', () => {
	expect(shownPath(ROOT, path.join(ROOT, '.data', 'stack.json'))).toBe(
		path.join('.data', 'stack.json'),
	);
	expect(shownPath(ROOT, '/srv/site-stack/stack.json')).toBe('/srv/site-stack/stack.json');
});

test('the banner names the stack.json it is given, for the admin token and the MCP token', () => {
	const moved = text('/srv/site-stack/stack.json');
	expect(moved).not.toContain('.data/stack.json');
	expect(moved).toContain('admin token     in /srv/site-stack/stack.json');
	expect(moved).toContain('mcpToken in /srv/site-stack/stack.json');
});

test('the banner lists every example npm start imports, the published ones marked, and the mail sink', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const stack = require('../../scripts/lib/stack');
	const shown = banner({
		n8nUrl: 'http://127.0.0.1:5678',
		owner: { email: 'owner@example.com', password: 'pw' },
		ownerNote: 'set up now',
		queueLines: [],
		serverUrl: 'http://127.0.0.1:4010',
		aiUrl: 'http://127.0.0.1:4011/v1',
		realAi: false,
		queue: false,
		stateFile: '.data/stack.json',
		mailPort: 4125,
	});
	const examples = Object.values(stack.WORKFLOWS) as Array<{ id: string; file: string }>;
	expect(examples.length).toBeGreaterThan(0);
	for (const workflow of examples) {
		const name = stack.exampleName(workflow);
		const published = stack.PUBLISHED.includes(workflow);
		expect(shown).toContain(`    ${name}${published ? '   (published)' : ''}\n`);
	}
	expect(shown).toContain('smtp://127.0.0.1:4125');
});
