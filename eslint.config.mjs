import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tseslint from 'typescript-eslint';

// The package that n8n loads: nodes, credentials and package.json, linted by n8n's own
// community-nodes rules. Tests, the reference server and tooling are not shipped and not linted here.
export default tseslint.config(
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'reference-server/**',
			'test/**',
			'bench/**',
			'scripts/**',
			'test-install/**',
			'examples/**',
			'coverage/**',
			'.data/**',
			'**/*.js',
		],
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
