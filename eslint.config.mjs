import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Everything in the repository is linted: TypeScript by typescript-eslint's recommended rules,
// JavaScript (scripts, end-to-end tests, configs) by ESLint's, and the package that n8n loads
// (nodes, credentials, package.json) also by n8n's own community-nodes rules.
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
	{
		files: ['**/*.ts'],
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
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		...n8nCommunityNodesPlugin.configs.recommended,
	},
);
