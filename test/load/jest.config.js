/** The load test (npm run test:load): not part of `npm test`; bounded to about a minute. */
const path = require('path');

/** @type {import('jest').Config} */
module.exports = {
	rootDir: path.join(__dirname, '..', '..'),
	displayName: 'load',
	testEnvironment: 'node',
	testMatch: ['<rootDir>/test/load/**/*.load.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
	testTimeout: 120000,
	modulePathIgnorePatterns: ['<rootDir>/dist', '<rootDir>/reference-server/dist'],
};
