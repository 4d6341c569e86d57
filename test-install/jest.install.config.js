/**
 * `npm run test:install`: the package as users get it. npm pack, a local registry, n8n's scanner,
 * `npm install` into a fresh n8n user folder, workflows in a real n8n, then an update to 0.1.1.
 * Kept apart from `npm test` and `npm run test:n8n`: it installs its own tools on first use and
 * starts n8n processes.
 */
/** @type {import('jest').Config} */
module.exports = {
	rootDir: __dirname,
	displayName: 'install',
	testEnvironment: 'node',
	testMatch: ['<rootDir>/**/*.e2e.test.js'],
	modulePathIgnorePatterns: ['<rootDir>/tools/'],
	transform: {},
	maxWorkers: 1,
	testTimeout: 300000,
	verbose: true,
};
