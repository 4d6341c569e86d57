/**
 * The lint rules of every folder but the package. The root `eslint.config.mjs` is n8n's own default
 * (`@n8n/node-cli/eslint`, unchanged, as `n8n.strict` requires) for `nodes/`, `credentials/` and
 * `package.json`; `npm run lint` runs `n8n-node lint` with ESLint's per-file config lookup
 * (`ESLINT_FLAGS=unstable_config_lookup_from_file`), so each file is linted by the
 * `eslint.config.mjs` nearest to it. reference-server/, test/, e2e/, bench/ and scripts/ each hold one
 * that calls folderConfig: typescript-eslint's recommended rules on TypeScript, ESLint's on
 * JavaScript.
 *
 * typescript-eslint's rule sets are read from its plugin (`tseslint.plugin.configs`), not through the
 * `tseslint.configs.*` getters: each read of those registers the reading folder as a candidate
 * tsconfig root with the TypeScript parser, which n8n's root config shares; with several candidates
 * the folders' TypeScript files fail to parse ("multiple candidate TSConfigRootDirs") and n8n's rules
 * misread the credential files.
 */
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Patterns are relative to the folder of the config that calls this.
 * @param {{ anyAllowed?: string[], jestGlobals?: string[] }} [options]
 *   anyAllowed: TypeScript files where `any` is allowed (tests read JSON answers of any shape; typing
 *   each one would test the types, not the behaviour); jestGlobals: JavaScript files run by jest.
 */
export function folderConfig({ anyAllowed = [], jestGlobals = [] } = {}) {
	return defineConfig(
		{ ignores: ['**/dist/', 'coverage/'] },
		{
			files: ['**/*.ts'],
			extends: [tseslint.plugin.configs['flat/recommended']],
			// Leaving fields out of an object by destructuring (`{ secret: _s, ...rest }`) is not an unused variable.
			rules: {
				'@typescript-eslint/no-unused-vars': [
					'error',
					{ ignoreRestSiblings: true, argsIgnorePattern: '^_' },
				],
			},
		},
		anyAllowed.length > 0
			? [{ files: anyAllowed, rules: { '@typescript-eslint/no-explicit-any': 'off' } }]
			: [],
		{
			files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
			extends: [js.configs.recommended],
			languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
		},
		{ files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
		jestGlobals.length > 0
			? [{ files: jestGlobals, languageOptions: { globals: { ...globals.jest } } }]
			: [],
	);
}
