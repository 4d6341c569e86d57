import js from '@eslint/js';
import { config as n8nNodeConfig } from '@n8n/node-cli/eslint';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The package n8n loads (nodes, credentials, package.json) is linted by exactly n8n-node's own config
// (`@n8n/node-cli/eslint`, what `npx n8n-node lint` expects of a community package); the rest of the
// repository (reference server, tests, scripts, bench) by typescript-eslint's and ESLint's
// recommended rules. n8n-node's config is written for a repository that holds only the package, so
// each of its entries is narrowed here to the package's files.
const PACKAGE_TS = ['nodes/**/*.ts', 'credentials/**/*.ts'];
const PACKAGE_FILES = [...PACKAGE_TS, 'package.json'];

const forPackage = (entry) => {
	// Its global ignores (`dist`) stay global.
	if (!entry.files && entry.ignores && Object.keys(entry).length === 1) return entry;
	if (!entry.files) return { ...entry, files: PACKAGE_FILES };
	const files = entry.files.flatMap((pattern) => (pattern === '**/*.ts' ? PACKAGE_TS : [pattern]));
	return { ...entry, files };
};

export default tseslint.config(
	{
		ignores: [
			'**/dist/**',
			'node_modules/**',
			'tools/n8n-runtime/**',
			'tools/n8n1-runtime/**',
			'tools/release/**',
			'coverage/**',
			'.data/**',
			'examples/**',
		],
	},
	...n8nNodeConfig.map(forPackage),
	{
		files: ['**/*.ts'],
		ignores: PACKAGE_TS,
		extends: [...tseslint.configs.recommended],
		// Leaving fields out of an object by destructuring (`{ secret: _s, ...rest }`) is not an unused variable.
		rules: {
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ ignoreRestSiblings: true, argsIgnorePattern: '^_' },
			],
		},
	},
	{
		// Tests read JSON answers of any shape; typing each one would test the types, not the behaviour.
		files: ['test/**/*.ts', 'e2e/**/*.ts', 'reference-server/test/**/*.ts'],
		rules: { '@typescript-eslint/no-explicit-any': 'off' },
	},
	{
		files: ['**/*.js', '**/*.mjs'],
		extends: [js.configs.recommended],
		languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
	},
	{
		files: ['eslint.config.mjs', 'e2e/install/**/*.mjs'],
		languageOptions: { sourceType: 'module' },
	},
	{
		files: ['e2e/**/*.js'],
		languageOptions: { globals: { ...globals.jest } },
	},
);
