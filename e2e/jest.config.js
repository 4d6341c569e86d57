/**
 * The end-to-end suites, one jest project each, kept apart from `npm test` (jest.config.js at the
 * root): each npm script runs its own with `--selectProjects` (`npm run test:n8n`, `test:n8n1`,
 * `test:queue`, `test:ui`, `test:install`, `test:load`).
 *
 * - n8n: through a real n8n (tools/n8n-runtime/, n8n 2.x on Node 24) against the reference server.
 *   The first run installs the runtime (minutes, 3 GB) and every run starts n8n processes.
 * - n8n1: the files of N8N1_FILES (below) on n8n 1.x (tools/n8n1-runtime/, the script sets
 *   SITE_N8N_RUNTIME_DIR).
 * - queue: the package on n8n's queue mode with the real parts. Redis and PostgreSQL from Debian's
 *   packages, n8n as main + 2 workers + 2 webhook processors behind a round-robin proxy, the
 *   reference server in process.
 * - ui: the editor in a real browser. One stack (as `npm start` builds it) and one Chromium for the
 *   file; the steps run in order and build on each other.
 * - install: the package as users get it. npm pack, a local registry, n8n's scanner, `npm install`
 *   into a fresh n8n user folder, workflows in a real n8n, then an update to 0.1.1. Installs its own
 *   tools (tools/release/) on first use.
 * - load: the reference server under load, bounded to about a minute.
 */
const path = require('path');

const ROOT = path.join(__dirname, '..');

/**
 * One suite. `timeout`: per test (jest's own testTimeout is one for all projects, so
 * e2e/test-timeout.js sets it per file from this project's globals).
 */
const suite = (name, { testMatch, timeout, ...rest }) => ({
	rootDir: path.join(__dirname, name),
	displayName: name,
	testEnvironment: 'node',
	testMatch: [`<rootDir>/**/${testMatch}`],
	transform: {},
	globals: { E2E_TEST_TIMEOUT: timeout },
	setupFilesAfterEnv: [path.join(__dirname, 'test-timeout.js')],
	...rest,
});

/**
 * The files of e2e/n8n/ that also run on n8n 1.x (`npm run test:n8n1`, project n8n1): each takes a
 * path through n8n that 1.x has of its own (its request helper's errors, its AI Agent and MCP
 * nodes, test webhooks, activation, Data tables, manual runs, cancellation, its resource mapper's
 * values, the legacy expression
 * engine resolving a credential per item, the poll path), and most branch on the runtime
 * (scripts/lib/runtime.js's RUNTIMES). The three left out run on n8n 2.x only: docs/development.md
 * ("n8n 1.x") says why for each.
 */
const N8N1_FILES = [
	'ai-tool-secrets',
	'cancellation',
	'contact-form-listening',
	'contact-form-many-tenants',
	'credential-trust',
	'examples-stock',
	'field-mapping',
	'fleet-outputs',
	'fleet-rollout',
	'many-sites',
	'mcp-site-tools',
	'n8n-stack',
	'page-trigger-contract',
	'send-and-wait',
	'tenant-scope',
];

/** @type {import('jest').Config} */
module.exports = {
	projects: [
		// The runtime install in beforeAll has its own, longer limit.
		suite('n8n', { testMatch: '*.e2e.test.js', timeout: 240000 }),
		{
			...suite('n8n', { testMatch: '*.e2e.test.js', timeout: 240000 }),
			displayName: 'n8n1',
			testMatch: N8N1_FILES.map((name) => `<rootDir>/${name}.e2e.test.js`),
		},
		suite('queue', { testMatch: '*.e2e.test.js', timeout: 240000 }),
		suite('ui', { testMatch: '*.ui.test.js', timeout: 120000 }),
		suite('install', { testMatch: '*.e2e.test.js', timeout: 300000 }),
		suite('load', {
			testMatch: '*.load.ts',
			timeout: 120000,
			transform: {
				'^.+\\.ts$': ['ts-jest', { tsconfig: path.join(ROOT, 'tsconfig.test.json') }],
			},
		}),
	],
	// One stack at a time: the tests of a file share one n8n (or server) and run in order.
	maxWorkers: 1,
	verbose: true,
};
