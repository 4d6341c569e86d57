/** The pages a reader meets: the README, the changelog, the reference server's README and docs/. */
import { readdirSync } from 'fs';
import { join } from 'path';

export const ROOT = join(__dirname, '..', '..');

export const PAGES = [
	'README.md',
	'CHANGELOG.md',
	'reference-server/README.md',
	...readdirSync(join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`),
];
