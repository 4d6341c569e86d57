/**
 * The package on n8n's queue mode with the real parts: `npm run test:queue`. Redis and PostgreSQL
 * from Debian's packages, n8n (n8n-runtime/) as main + 2 workers + 2 webhook processors behind a
 * round-robin proxy, the reference server in process. One stack for the file; tests run in order.
 */
/** @type {import('jest').Config} */
module.exports = {
	rootDir: __dirname,
	displayName: 'queue',
	testEnvironment: 'node',
	testMatch: ['<rootDir>/**/*.e2e.test.js'],
	transform: {},
	maxWorkers: 1,
	testTimeout: 240000,
	verbose: true,
};
