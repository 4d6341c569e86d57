/**
 * The package on n8n's queue mode with the real parts: `npm run test:queue`. Redis and PostgreSQL
 * from Debian's packages, n8n (n8n-runtime/) as main + 2 workers + 2 webhook processors behind a
 * round-robin proxy, the reference server in process. Same settings as the real-n8n tests (one stack
 * per file, tests in order), in this folder.
 */
/** @type {import('jest').Config} */
module.exports = {
	...require('../test-n8n/jest.n8n.config.js'),
	rootDir: __dirname,
	displayName: 'queue',
};
