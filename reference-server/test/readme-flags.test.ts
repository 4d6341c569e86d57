/**
 * reference-server/README.md lists every command-line flag with its environment twin: the README is
 * where the server's flags are documented, and `--help` (usage()) is generated from the option table.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { usage } from '../src/config';

const README = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');

/** [flag, env] of every option `--help` prints. */
function flagsOfUsage(): Array<[string, string]> {
	const pairs: Array<[string, string]> = [];
	const lines = usage().split('\n');
	lines.forEach((line, i) => {
		const flag = /^\s+--([a-z-]+)/.exec(line)?.[1];
		const env = /^\s+env (\S+)/.exec(lines[i + 1] ?? '')?.[1];
		if (flag && env) pairs.push([flag, env]);
	});
	return pairs;
}

test('usage() names flags with their environment twins', () => {
	expect(flagsOfUsage().length).toBeGreaterThan(15);
});

test('every flag and its environment variable are a row of the README table', () => {
	// Prettier pads table cells, so a row is matched with any run of spaces between the cells.
	const rowOf = (flag: string, env: string) =>
		new RegExp(`\\|\\s*\`--${flag}\`\\s*\\|\\s*\`${env}\`\\s*\\|`);
	const missing = flagsOfUsage().filter(([flag, env]) => !rowOf(flag, env).test(README));
	expect(missing).toEqual([]);
});
