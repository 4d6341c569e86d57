/**
 * End-to-end tests through a real n8n (n8n-runtime/, n8n 2.x on Node 24) against the reference
 * server: `npm run test:n8n`. Kept apart from `npm test` (jest.config.js at the root), because the
 * first run installs the runtime (minutes, 3 GB) and every run starts n8n processes.
 */
/** @type {import('jest').Config} */
module.exports = {
	rootDir: __dirname,
	displayName: 'n8n',
	testEnvironment: 'node',
	testMatch: ['<rootDir>/**/*.e2e.test.js'],
	transform: {},
	// One n8n at a time: the tests share one instance and run in order.
	maxWorkers: 1,
	// Per test; the runtime install in beforeAll has its own, longer limit.
	testTimeout: 240000,
	verbose: true,
};
