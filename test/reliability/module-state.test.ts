/**
 * No node or credential keeps state in module scope between executions. In queue mode every worker
 * and webhook process loads the package on its own: what one process keeps in a module variable the
 * others never see, and it survives from one execution to the next in the same process. State that
 * must outlive an execution belongs on the site (or in n8n's stores), not in a module.
 *
 * A static rule over the sources (TypeScript's parser): at the top level of a module, no `let` or
 * `var`, and no `const` holding a container (Map, Set, array, object) that the module changes (a
 * WeakMap keyed by a node run's context dies with it and is allowed). A few
 * modules are known exceptions, each with the reason it is not state between executions (or why it
 * is kept): any new one fails here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');

const EXCEPTIONS: Record<string, { name: string; why: string }> = {
	'nodes/SitePageTrigger/SitePageTrigger.node.ts': {
		name: 'pollsInFlight',
		why: "not state between executions: the polls of one trigger running right now, emptied when each poll ends. Need: a poll that starts while the last still runs reads the same state and reports its changes twice (test/nodes/SitePageTrigger/trigger.test.ts). n8n offers a poll no lock: the workflow's static data is saved only after a poll emits, so a marker there is not seen by the overlapping poll, and polls of active workflows all run in n8n's main process (the leader in queue mode), so this process's memory is the one place both polls see",
	},
	'nodes/SiteContactFormTrigger/repeats.ts': {
		name: 'recent',
		why: "the repeat memory of manual registration, best effort and documented as per process. Need: a delivery the site repeats must not start the workflow twice. Manual registration has no credential for the site, so it cannot claim there (automatic registration does). Tried: the workflow's static data. n8n saves it after a webhook() call, but whole and as read when the request began (live-webhooks.js: saveStaticData, an UPDATE of the workflow's whole staticData): a delivery that runs across a re-activation writes back the registration it replaced, and every later delivery is refused for a stale secret; two deliveries at once drop each other's keys. Memory of this process is the one place with neither failure",
	},
	'nodes/shared/managedTenant.ts': {
		name: 'editorTokens',
		why: "tenant tokens the editor's list searches reuse for five minutes at most, per credential scope (a hash of tenant, both base URLs and the admin token), at most 100 scopes. Need: n8n makes a new load-options context for every keystroke of a list search, and each would otherwise mint a token on the service (issue 38). A token found here is only ever used for the scope it was minted for, so a process that lacks it mints one: nothing is lost between processes",
	},
};

const MUTATING_METHODS = new Set([
	'push',
	'pop',
	'shift',
	'unshift',
	'splice',
	'sort',
	'reverse',
	'fill',
	'set',
	'add',
	'delete',
	'clear',
]);

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const relative = path.posix.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(relative);
		return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [relative] : [];
	});
}

function isContainer(node: ts.Expression | undefined): boolean {
	if (!node) return false;
	while (
		ts.isAsExpression(node) ||
		ts.isSatisfiesExpression(node) ||
		ts.isParenthesizedExpression(node)
	)
		node = node.expression;
	if (ts.isArrayLiteralExpression(node) || ts.isObjectLiteralExpression(node)) return true;
	// A WeakMap is not listed: its entries live only as long as their keys (e.g. one node run's context).
	return (
		ts.isNewExpression(node) &&
		ts.isIdentifier(node.expression) &&
		['Map', 'Set', 'Array', 'Object'].includes(node.expression.text)
	);
}

/** Top-level names a module declares with let/var, and top-level const containers it changes. */
export function moduleState(fileName: string, text: string): string[] {
	const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
	const found: string[] = [];
	const containers = new Set<string>();
	for (const statement of source.statements) {
		if (!ts.isVariableStatement(statement)) continue;
		const list = statement.declarationList;
		const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
		for (const declaration of list.declarations) {
			if (!ts.isIdentifier(declaration.name)) continue;
			if (!isConst) found.push(`${declaration.name.text} (let/var)`);
			else if (isContainer(declaration.initializer)) containers.add(declaration.name.text);
		}
	}
	const changed = new Set<string>();
	const rootName = (node: ts.Expression): string | undefined => {
		while (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node))
			node = node.expression;
		return ts.isIdentifier(node) ? node.text : undefined;
	};
	const visit = (node: ts.Node) => {
		if (
			ts.isCallExpression(node) &&
			ts.isPropertyAccessExpression(node.expression) &&
			MUTATING_METHODS.has(node.expression.name.text)
		) {
			const name = rootName(node.expression.expression);
			if (name && containers.has(name)) changed.add(name);
		}
		if (
			ts.isBinaryExpression(node) &&
			node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
			node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
		) {
			const target = node.left;
			if (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) {
				const name = rootName(target);
				if (name && containers.has(name)) changed.add(name);
			}
		}
		if (ts.isDeleteExpression(node)) {
			const name = rootName(node.expression);
			if (name && containers.has(name)) changed.add(name);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return [...found, ...[...changed].map((name) => `${name} (changed at run time)`)];
}

describe('no module-scope state in nodes and credentials', () => {
	const files = [...sourceFiles('nodes'), ...sourceFiles('credentials')];

	test('the rule finds state: let/var, and const containers that are changed', () => {
		const sample = [
			'let counter = 0;',
			'var legacy;',
			'const cache = new Map<string, string>();',
			'const seen: string[] = [];',
			'const table = { a: 1 };',
			'const fixed = [1, 2] as const;',
			'const settings = { b: 2 };',
			'const perRun = new WeakMap<object, string>();',
			'export function run(key: string) { perRun.set({}, key); cache.set(key, key); seen.push(key); table.a += 1; delete settings.b; return fixed[0]; }',
		].join('\n');
		expect(moduleState('sample.ts', sample).sort()).toEqual(
			[
				'cache (changed at run time)',
				'counter (let/var)',
				'legacy (let/var)',
				'seen (changed at run time)',
				'settings (changed at run time)',
				'table (changed at run time)',
			].sort(),
		);
	});

	test('nodes and credentials keep none, apart from the listed exceptions', () => {
		expect(files.length).toBeGreaterThan(20);
		const found: Record<string, string[]> = {};
		for (const file of files) {
			const state = moduleState(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
			const allowed = EXCEPTIONS[file]
				? `${EXCEPTIONS[file].name} (changed at run time)`
				: undefined;
			const rest = state.filter((entry) => entry !== allowed);
			if (rest.length > 0) found[file] = rest;
		}
		expect(found).toEqual({});
	});

	test('each exception still exists as described (a stale entry would hide nothing and mislead)', () => {
		for (const [file, { name }] of Object.entries(EXCEPTIONS)) {
			expect(moduleState(file, fs.readFileSync(path.join(ROOT, file), 'utf8'))).toContain(
				`${name} (changed at run time)`,
			);
		}
	});
});
