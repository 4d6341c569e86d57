/**
 * No token in node output (except Token > Issue's, which exists to hand one out), error messages,
 * the execution data n8n saves, or the exported workflow. Every Tenant operation runs with the plain
 * and the managed credential (which mints its own tokens), then failures (a wrong token, the wrong
 * surface's token, a revoked token) run with and without Continue On Fail; everything is scanned for
 * every token the test knows, including the tokens the managed credential minted.
 */
import type { INodeCredentials, INodeParameters } from 'n8n-workflow';

import type { NodeRunResult } from '../harness/workflow-runner';
import { report } from '../harness/fault-counter';
import { credentialId, expectNoSecrets, useNodeTestContext } from '../harness/nodes';
import { startMintCapture } from '../harness/mint-capture';

const ctx = useNodeTestContext();
const secrets: string[] = [];
let scanned = 0;

function scan(label: string, result: NodeRunResult) {
	scanned++;
	const everything = {
		items: result.items,
		error: result.error,
		execution: result.run.data,
		errorMessage: result.error?.message,
		description: result.error?.description,
	};
	try {
		expectNoSecrets(everything, secrets);
	} catch (error) {
		throw new Error(`${label}: ${(error as Error).message}`);
	}
}

const operations: INodeParameters[] = [
	{ resource: 'page', operation: 'create', name: 'Secret test', url: '/secret-test', locale: 'en' },
	{ resource: 'page', operation: 'get', url: '/secret-test' },
	{ resource: 'page', operation: 'getAll', returnAll: true },
	{
		resource: 'content',
		operation: 'update',
		url: '/secret-test',
		templates: '[{"type":"text","text":"hi"}]',
		banner: '{"title":"b"}',
	},
	{ resource: 'settings', operation: 'update', updateFields: { googleCode: 'G-1' } },
	{ resource: 'sitemap', operation: 'get' },
	{
		resource: 'notification',
		operation: 'send',
		notificationId: 'job',
		message: 'm',
		status: 'info',
	},
	{ resource: 'variable', operation: 'set', key: 'k', value: 'v' },
	{ resource: 'variable', operation: 'getAll' },
	{ resource: 'variable', operation: 'delete', key: 'k' },
	{ resource: 'ai', operation: 'getPageContext', url: '/secret-test' },
	{ resource: 'customApiCall', operation: 'call', method: 'GET', path: '/api/settings' },
	{ resource: 'page', operation: 'delete', url: '/secret-test' },
];

test('every operation, plain and managed credential: outputs, errors and execution data carry no token', async () => {
	secrets.push(ctx.site.adminToken);
	await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'secrets' });
	// Token > Issue is the one output that carries a token, on purpose.
	const issued = await ctx.adminNode({
		resource: 'token',
		operation: 'issue',
		id: 'secrets',
	});
	const token = issued.items[0].json.token as string;
	expect(token).toEqual(expect.any(String));
	secrets.push(token);

	const plain = ctx.runner.credentials.add('siteTenantApi', { baseUrl: ctx.site.url, token });
	// The managed credential mints through a loopback forwarder that records the tokens it hands out:
	// a node run keeps its tokens to itself (nothing is stored in the credential).
	const capture = await startMintCapture(() => ctx.site.url);
	const managed = ctx.managedCredential('secrets', { adminBaseUrl: capture.url });
	const issuedBefore = ctx.site.tokensIssued('secrets');
	try {
		for (const [authentication, credentials] of [
			['tenantToken', plain],
			['managedTenant', managed],
		] as Array<[string, INodeCredentials]>) {
			for (const parameters of operations) {
				const result = await ctx.runner.runNode({
					type: 'siteTenant',
					credentials,
					parameters: { authentication, ...parameters },
				});
				expect({ op: parameters.operation, error: result.error?.message }).toEqual({
					op: parameters.operation,
					error: undefined,
				});
				for (const minted of capture.tokens()) if (!secrets.includes(minted)) secrets.push(minted);
				scan(`${authentication} ${parameters.resource}.${parameters.operation}`, result);
			}
		}
	} finally {
		await capture.close();
	}
	// Each run with the managed credential minted its own token (none with the plain one), and every
	// token the server issued since is among those scanned for.
	expect(new Set(capture.tokens()).size).toBe(operations.length);
	expect(ctx.site.tokensIssued('secrets') - issuedBefore).toBe(operations.length);
	// Nothing was stored in n8n's credential.
	expect(ctx.runner.credentials.read(credentialId(managed)).accessToken).toBe('');

	// The Admin node's other operations.
	for (const parameters of [
		{ resource: 'tenant', operation: 'update', oldId: 'secrets', id: 'secrets-2' },
		{ resource: 'tenant', operation: 'delete', id: 'secrets-2' },
	]) {
		scan(`admin ${parameters.operation}`, await ctx.adminNode(parameters));
	}
});

test('failures: wrong, revoked and wrong-surface tokens leave no token in the error, with or without Continue On Fail', async () => {
	await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'secrets-fail' });
	const revoked = (
		await ctx.adminNode({ resource: 'token', operation: 'issue', id: 'secrets-fail' })
	).items[0].json.token as string;
	await ctx.adminNode({
		resource: 'token',
		operation: 'issue',
		id: 'secrets-fail',
		revokePrevious: true,
	});
	const wrong = `stt_wrong_${'x'.repeat(40)}`;
	secrets.push(revoked, wrong);

	const badCredentials = [
		ctx.runner.credentials.add('siteTenantApi', { baseUrl: ctx.site.url, token: wrong }),
		ctx.runner.credentials.add('siteTenantApi', { baseUrl: ctx.site.url, token: revoked }),
		ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: ctx.site.adminToken,
		}),
	];
	for (const credentials of badCredentials) {
		for (const continueOnFail of [false, true]) {
			const result = await ctx.runner.runNode({
				type: 'siteTenant',
				credentials,
				continueOnFail,
				parameters: { resource: 'page', operation: 'create', name: 'x', url: '/x', locale: 'en' },
			});
			if (continueOnFail) expect(result.items[0].json.error).toEqual(expect.any(String));
			else expect(result.error?.message).toEqual(expect.any(String));
			scan('failure', result);
		}
	}
	// A tenant token on the admin node (wrong surface).
	const adminWithTenantToken = ctx.runner.credentials.add('siteAdminApi', {
		baseUrl: ctx.site.url,
		token: revoked,
	});
	scan(
		'admin with a tenant token',
		await ctx.runner.runNode({
			type: 'siteAdmin',
			credentials: adminWithTenantToken,
			parameters: { resource: 'tenant', operation: 'create', id: 'nope' },
		}),
	);
});

test('the exported workflow holds credential references only, never a token', () => {
	// What n8n exports: nodes (parameters, credential id and name), connections, settings.
	const exported = {
		name: 'Secrets',
		nodes: operations.map((parameters, i) => ({
			id: `n${i}`,
			name: `Node ${i}`,
			type: 'n8n-nodes-site-management.siteTenant',
			typeVersion: 1,
			position: [i * 200, 0],
			parameters,
			credentials: { siteTenantApi: { id: '1', name: 'Site Management Tenant API' } },
		})),
		connections: {},
		settings: { executionOrder: 'v1' },
	};
	expectNoSecrets(exported, secrets);
	// The node descriptions themselves have no parameter that could hold a token.
	for (const type of ['siteTenant', 'siteAdmin']) {
		const properties = ctx.runner.nodeTypes.getByNameAndVersion(type).description.properties;
		const tokenLike = properties.filter(
			(p) =>
				/token|secret|password|authorization/i.test(`${p.name} ${p.displayName}`) &&
				p.typeOptions?.password !== true,
		);
		expect(tokenLike.filter((p) => p.type === 'string').map((p) => p.name)).toEqual([]);
	}
	report('security: node outputs', { runs_scanned: scanned, secrets: secrets.length, leaks: 0 });
});
