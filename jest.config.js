/** Two projects: the reference server's own tests and the n8n package's tests (nodes in n8n-core). */
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }];

const shared = {
	rootDir: __dirname,
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': tsJest },
	// dist/ holds a copy of package.json; keep jest's module map to the sources.
	modulePathIgnorePatterns: [
		'<rootDir>/dist/',
		'<rootDir>/reference-server/dist/',
		'<rootDir>/tools/',
	],
};

/** @type {import('jest').Config} */
module.exports = {
	projects: [
		{
			...shared,
			displayName: 'reference-server',
			testMatch: ['<rootDir>/reference-server/test/**/*.test.ts'],
		},
		{
			...shared,
			displayName: 'nodes',
			testMatch: ['<rootDir>/test/**/*.test.ts'],
			setupFilesAfterEnv: ['<rootDir>/test/harness/setup-env.ts'],
		},
	],
	// A hang guard: under CI, npm test runs niced beside the e2e suites and can wait minutes for a core.
	testTimeout: 180_000,
};
