/**
 * n8n runs the regular expressions of its parameter checks (a resource locator's `regex`, a
 * credential field's rule) in a vm with a 250 ms wall-clock limit. This suite runs niced beside n8n
 * processes, where a process can wait longer than that for a core, and a one-letter match then
 * "timed out". The same vm engine with a 30 s limit: a pattern that backtracks still fails, and
 * test/reliability/linear-patterns.test.ts proves the package's own are linear.
 */
import { createContext, Script } from 'vm';
import type { RegexEngine } from 'n8n-workflow';

const TIMEOUT_MS = 30_000;

const OPERATIONS = {
	exec: 'result = new RegExp(pattern, flags).exec(input)',
	test: 'result = new RegExp(pattern, flags).test(input)',
	replace: 'result = input.replace(new RegExp(pattern, flags), replacement)',
	matchAll:
		'result = Array.from(input.matchAll(new RegExp(pattern, flags.includes("g") ? flags : flags + "g")))',
	split: 'result = input.split(new RegExp(pattern, flags))',
};

export function patientRegexEngine(): RegexEngine {
	const context: Record<string, unknown> = {};
	const sandbox = createContext(context);
	const scripts = Object.fromEntries(
		Object.entries(OPERATIONS).map(([name, source]) => [name, new Script(source)]),
	);
	const run = (name: string, pattern: string, input: string, flags = '', replacement = '') => {
		Object.assign(context, { pattern, input, flags, replacement, result: undefined });
		scripts[name].runInContext(sandbox, { timeout: TIMEOUT_MS });
		return context.result;
	};
	return {
		exec: (pattern, input, flags) => run('exec', pattern, input, flags) as RegExpExecArray | null,
		test: (pattern, input, flags) => run('test', pattern, input, flags) as boolean,
		replace: (pattern, input, flags, replacement) =>
			run('replace', pattern, input, flags, replacement) as string,
		matchAll: (pattern, input, flags) =>
			run('matchAll', pattern, input, flags) as RegExpMatchArray[],
		split: (pattern, input, flags) => run('split', pattern, input, flags) as string[],
	};
}
