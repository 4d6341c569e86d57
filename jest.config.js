/** Two projects: the reference server's own tests and the n8n package's tests (nodes in n8n-core). */
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }];

/** @type {import('jest').Config} */
module.exports = {
	projects: [
		{
			displayName: 'reference-server',
			rootDir: __dirname,
			testEnvironment: 'node',
			testMatch: ['<rootDir>/reference-server/test/**/*.test.ts'],
			transform: { '^.+\\.ts$': tsJest },
		},
		{
			displayName: 'nodes',
			rootDir: __dirname,
			testEnvironment: 'node',
			testMatch: ['<rootDir>/test/**/*.test.ts'],
			transform: { '^.+\\.ts$': tsJest },
			setupFilesAfterEnv: ['<rootDir>/test/setup-env.ts'],
		},
	],
	testTimeout: 60000,
};
