/**
 * The editor in a real browser: `npm run test:ui`. One stack (as `npm start` builds it) and one
 * Chromium for the file; the steps run in order and build on each other.
 */
/** @type {import('jest').Config} */
module.exports = {
	rootDir: __dirname,
	displayName: 'ui',
	testEnvironment: 'node',
	testMatch: ['<rootDir>/**/*.ui.test.js'],
	transform: {},
	maxWorkers: 1,
	testTimeout: 120000,
	verbose: true,
};
