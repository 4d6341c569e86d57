'use strict';
/**
 * In a real n8n (`n8n start`; n8n 2.x from tools/n8n-runtime/, n8n 1.x with
 * SITE_N8N_RUNTIME_DIR=tools/n8n1-runtime): stopping an execution the way the editor does
 * (`POST /rest/executions/:id/stop`) ends the Tenant node's waits at once, and the node sends nothing
 * more.
 *
 * - Retry-After: Page > Get Many on a loopback site that answers every request with 503 and
 *   `Retry-After: 30` (the node honours up to 60 s, 5 retries). Stopped while the node waits.
 *   n8n 1.x loses the answer's headers when its request helper throws (its ExecutionBaseError
 *   declares a `cause` field that drops the AxiosError), so there the node never sees the
 *   Retry-After and backs off on its own schedule (under 250, 500, 1000… ms): the stop lands in one
 *   of those backoffs, which must end just as fast.
 * - Batching pause: Notification > Send for three items with Options > Batching (1 item per batch,
 *   30000 ms between batches) on a site that answers 200. Stopped during the pause after item 1.
 *
 * Measured from the moment the stop call is sent: when n8n reports the execution ended (its status
 * over the REST API) and when the node itself returned (n8n's debug line `Running node "…" finished`,
 * timed as n8n prints it). n8n marks a stopped execution cancelled at once, whatever its nodes are
 * doing, so the node's own end is the figure that shows its wait ended; each case prints its figures
 * in one `[cancellation]` line. The last test waits until 30 s after each stop (when a wait that did
 * not end would have sent its next request) and checks that neither site heard anything more.
 *
 * Its own stack: no reference server (the two loopback sites are this file's), an n8n user folder
 * in a temporary directory with the package staged, `n8n start` with debug logging.
 */
const crypto = require('node:crypto');
const http = require('node:http');

const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const processes = require('../../scripts/lib/process');
const stack = require('../../scripts/lib/stack');
const { restCall } = require('../../scripts/lib/rest');
const e2eStack = require('./lib/stack');
const { pinnedN8nVersion } = require('./lib/run-data');

const say = e2eStack.progressLog('n8n cancel');

const N8N_1 = pinnedN8nVersion().startsWith('1.');
const TENANT_NODE = 'n8n-nodes-site-management.siteTenant';
const RETRY_AFTER_SECONDS = 30;
const BATCH_INTERVAL_MS = 30000;
/**
 * How soon after the stop call the execution and the node must have ended: a deadline, not a speed
 * goal. Both end within a few hundred milliseconds; a wait that the stop did not end would go on for
 * most of its 30 s (the stop comes about a second into it), and that time is a timer's, which a
 * loaded machine can only lengthen. With n8n 1.x the stop lands in a backoff of a second or two
 * (see above), which this cannot tell from an ended one: there "nothing more is sent" is the check.
 */
const ENDS_WITHIN_MS = 10_000;
/** How long the sites are watched right after a stop. */
const QUIET_MS = 3000;
const CREDENTIALS = {
	retrySite: { id: 'e2eCancelTenant1', name: 'Tenant (always 503)', type: 'siteTenantApi' },
	okSite: { id: 'e2eCancelTenant2', name: 'Tenant (always 200)', type: 'siteTenantApi' },
};
const WORKFLOWS = {
	retry: { id: 'e2eCancelRetry01', node: 'Get pages (503, Retry-After 30)' },
	batching: { id: 'e2eCancelBatch01', node: 'Send notifications (batched)' },
};

const ctx = { lines: [], stops: [] };

/** A loopback site that records every request (time, method, url) and answers with `answer`. */
async function startSite(answer) {
	const requests = [];
	const server = http.createServer((request, response) => {
		let body = '';
		request.setEncoding('utf8');
		request.on('data', (chunk) => (body += chunk));
		request.on('end', () => {
			requests.push({ at: Date.now(), method: request.method, url: request.url, body });
			const { status, headers, json } = answer(request, body);
			response.writeHead(status, { 'content-type': 'application/json', ...headers });
			response.end(JSON.stringify(json));
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', resolve);
	});
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

const node = (name, type, typeVersion, parameters, credentials, x) =>
	e2eStack.workflowNode({ name, type, typeVersion, parameters, credentials, position: [x, 0] });

const credentialRef = (key) => e2eStack.credentialRef(CREDENTIALS[key]);

/** The nodes in a chain, each to the next. */
const workflow = ({ id }, name, nodes) =>
	e2eStack.workflowJson({ id, name, nodes, links: e2eStack.chainLinks(nodes.map((n) => n.name)) });

/** Start -> Page > Get Many on the site that always answers 503 with Retry-After: 30. */
function retryWorkflow() {
	return workflow(WORKFLOWS.retry, 'E2E: stop during a Retry-After wait', [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, undefined, 0),
		node(
			WORKFLOWS.retry.node,
			TENANT_NODE,
			1,
			{
				authentication: 'tenantToken',
				resource: 'page',
				operation: 'getAll',
				returnAll: true,
				filters: {},
				options: {},
			},
			credentialRef('retrySite'),
			220,
		),
	]);
}

/** Start -> three items -> Notification > Send, 1 item per batch, 30 s between batches. */
function batchingWorkflow() {
	return workflow(WORKFLOWS.batching, 'E2E: stop during a batching pause', [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, undefined, 0),
		node(
			'Three items',
			'n8n-nodes-base.set',
			3.4,
			{ mode: 'raw', jsonOutput: JSON.stringify({ n: [1, 2, 3] }), options: {} },
			undefined,
			220,
		),
		node(
			'One item each',
			'n8n-nodes-base.splitOut',
			1,
			{ fieldToSplitOut: 'n', options: {} },
			undefined,
			440,
		),
		node(
			WORKFLOWS.batching.node,
			TENANT_NODE,
			1,
			{
				authentication: 'tenantToken',
				resource: 'notification',
				operation: 'send',
				notificationId: '={{ "cancel-" + $json.n }}',
				message: '={{ "item " + $json.n }}',
				status: 'info',
				options: {
					batching: { batch: { batchSize: 1, batchInterval: BATCH_INTERVAL_MS } },
					concurrency: 1,
				},
			},
			credentialRef('okSite'),
			660,
		),
	]);
}

/** n8n's REST API as the logged-in owner (as the editor calls it); resolves to `data`. */
const rest = (method, urlPath, body) => restCall(ctx.n8nUrl, ctx.cookie)(method, urlPath, body);

/**
 * The editor's "Execute workflow" from the Manual Trigger: resolves with the execution id. n8n 2.x
 * reads only `triggerToStartFrom`; n8n 1.x also needs the workflow itself (`workflowData`).
 */
async function startExecution(workflowId) {
	const workflowData = await rest('GET', `/workflows/${workflowId}`);
	const result = await rest('POST', `/workflows/${workflowId}/run`, {
		workflowData,
		triggerToStartFrom: { name: 'Start' },
	});
	if (!result?.executionId)
		throw new Error(`n8n did not start ${workflowId}: ${JSON.stringify(result)}`);
	return String(result.executionId);
}

const ENDED = (status) => !['new', 'running', 'waiting', 'unknown'].includes(status);

/**
 * Starts the workflow, waits until `site` has its first request and the node is in its wait, stops
 * the execution as the editor does and measures; resolves with the figures.
 */
async function stopDuringWait(workflowKey, site) {
	const { id: workflowId, node: nodeName } = WORKFLOWS[workflowKey];
	const before = site.requests.length;
	const executionId = await startExecution(workflowId);
	say(`${workflowKey}: execution ${executionId} started`);
	await stack.waitFor(
		`the first request of execution ${executionId}`,
		async () => site.requests.length > before,
		{ timeoutMs: 60000, everyMs: 25 },
	);
	// The answer is on its way back: give the node a moment to read it and start waiting.
	await processes.sleep(500);
	expect((await rest('GET', `/executions/${executionId}`)).status).toBe('running');
	const sentBeforeStop = site.requests.length - before;
	const sent = site.requests.slice(before);
	const gapsBeforeStopMs = sent.slice(1).map((request, i) => request.at - sent[i].at);

	const linesBefore = ctx.lines.length;
	const stoppedAt = Date.now();
	const stopAnswer = await rest('POST', `/executions/${executionId}/stop`);
	const stopAnsweredAt = Date.now();
	const stopCallMs = stopAnsweredAt - stoppedAt;
	// Once n8n has answered the stop call it has cancelled the run: nothing may be sent after that.
	ctx.stops.push({ site, at: stoppedAt, count: site.requests.length });

	let status;
	let statusMs;
	while (Date.now() - stoppedAt < ENDS_WITHIN_MS) {
		status = (await rest('GET', `/executions/${executionId}`)).status;
		if (ENDED(status)) {
			statusMs = Date.now() - stoppedAt;
			break;
		}
		await processes.sleep(20);
	}

	// n8n's debug line when the node returns (or throws): the node's own code has ended.
	const finishedLine = `Running node "${nodeName}" finished`;
	const nodeEnd = await stack
		.waitFor(
			`n8n's line ${finishedLine}`,
			async () => ctx.lines.slice(linesBefore).find(({ line }) => line.includes(finishedLine)),
			{ timeoutMs: ENDS_WITHIN_MS, everyMs: 10 },
		)
		.catch(() => undefined);
	// Not seen within ENDS_WITHIN_MS: the node was still waiting (Infinity fails every "within" below).
	const nodeEndMs = nodeEnd ? nodeEnd.at - stoppedAt : Infinity;

	const quietUntil = stoppedAt + QUIET_MS;
	await processes.sleep(Math.max(0, quietUntil - Date.now()));
	const sentDuringStopCall = site.requests.filter(
		(request) => request.at >= stoppedAt && request.at <= stopAnsweredAt,
	).length;
	const sentAfterStop = site.requests.filter((request) => request.at > stopAnsweredAt).length;
	const final = await rest('GET', `/executions/${executionId}`);

	const figures = {
		n8n: pinnedN8nVersion(),
		case: workflowKey,
		execution: executionId,
		sentBeforeStop,
		gapsBeforeStopMs,
		stopCallMs,
		stopAnswerStatus: stopAnswer?.status,
		statusMs,
		status,
		nodeEndMs: nodeEnd ? nodeEndMs : `not within ${ENDS_WITHIN_MS}`,
		// n8n colours its console lines.
		nodeLine: nodeEnd?.line
			// eslint-disable-next-line no-control-regex -- the escape that starts a colour is what it removes
			.replace(/\u001b\[[0-9;]*m/g, '')
			.trim()
			.slice(0, 100),
		sentDuringStopCall,
		sentInQuietWindow: sentAfterStop,
		quietWindowMs: QUIET_MS,
		finalStatus: final.status,
	};
	console.log(`[cancellation] ${JSON.stringify(figures)}`);
	return { ...figures, nodeEndMs };
}

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.retrySite = await startSite(() => ({
		status: 503,
		headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
		json: { message: 'Down for maintenance' },
	}));
	ctx.okSite = await startSite((request, body) => ({
		status: 200,
		headers: {},
		json: { notification: { ...JSON.parse(body || '{}'), created_at: new Date().toISOString() } },
	}));
	say(`sites: 503 at ${ctx.retrySite.url}, 200 at ${ctx.okSite.url}`);

	// Debug logging: n8n prints when a node's run ends.
	Object.assign(
		ctx,
		await e2eStack.prepareN8nFolder('site-n8n-cancel-', {
			envOf: (options) => n8nCommands.n8nEnv({ ...options, logLevel: 'debug' }),
		}),
	);
	const token = `stt_cancel${crypto.randomBytes(24).toString('base64url')}`;
	// n8n's lines, each with the time it came (startN8nIn hands them to `echo`).
	ctx.echo = (line) => ctx.lines.push({ at: Date.now(), line });
	await e2eStack.importFixtures(ctx, {
		credentials: [
			{ ...CREDENTIALS.retrySite, data: { baseUrl: ctx.retrySite.url, token } },
			{ ...CREDENTIALS.okSite, data: { baseUrl: ctx.okSite.url, token } },
		],
		workflows: [retryWorkflow(), batchingWorkflow()],
	});
	ctx.cookie = await e2eStack.ownerCookie(ctx.n8nUrl, 'cancel');
	say(`n8n ${pinnedN8nVersion()} ready on ${ctx.n8nUrl}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	await Promise.all([ctx.retrySite?.close(), ctx.okSite?.close()]);
	await e2eStack.stopStack(ctx);
});

describe(`stopping an execution ends the node's waits (n8n ${pinnedN8nVersion()})`, () => {
	const retryWait = N8N_1
		? 'a retry backoff (n8n 1.x loses the Retry-After: 30, see above)'
		: `a Retry-After: ${RETRY_AFTER_SECONDS} wait`;
	test(`during ${retryWait}: the execution and the node end within ${ENDS_WITHIN_MS} ms, nothing more is sent`, async () => {
		const figures = await stopDuringWait('retry', ctx.retrySite);
		// n8n 2.x: the one 503, then the 30 s wait. n8n 1.x: the node never saw the Retry-After (see
		// above) and retried on its own backoff until the stop.
		if (N8N_1) expect(figures.sentBeforeStop).toBeGreaterThanOrEqual(1);
		else expect([figures.sentBeforeStop, figures.sentDuringStopCall]).toEqual([1, 0]);
		expect(figures.statusMs).toBeLessThan(ENDS_WITHIN_MS);
		expect(figures.nodeEndMs).toBeLessThan(ENDS_WITHIN_MS);
		expect(figures.sentInQuietWindow).toBe(0);
	});

	test(`during a ${BATCH_INTERVAL_MS} ms batching pause: the execution and the node end within ${ENDS_WITHIN_MS} ms, the next item is never sent`, async () => {
		const figures = await stopDuringWait('batching', ctx.okSite);
		expect([figures.sentBeforeStop, figures.sentDuringStopCall]).toEqual([1, 0]);
		expect(JSON.parse(ctx.okSite.requests.at(-1).body)).toMatchObject({ id: 'cancel-1' });
		expect(figures.statusMs).toBeLessThan(ENDS_WITHIN_MS);
		expect(figures.nodeEndMs).toBeLessThan(ENDS_WITHIN_MS);
		expect(figures.sentInQuietWindow).toBe(0);
	});

	test('30 s after each stop (when a wait that kept going would have sent again) neither site heard more', async () => {
		expect(ctx.stops).toHaveLength(2);
		const last = Math.max(...ctx.stops.map((stop) => stop.at));
		const until = last + Math.max(RETRY_AFTER_SECONDS * 1000, BATCH_INTERVAL_MS) + 2000;
		say(`watching both sites for ${Math.round((until - Date.now()) / 1000)} s more`);
		await processes.sleep(Math.max(0, until - Date.now()));
		for (const stop of ctx.stops) expect(stop.site.requests.length).toBe(stop.count);
		if (!N8N_1) expect(ctx.retrySite.requests).toHaveLength(1);
		expect(ctx.okSite.requests.map((request) => JSON.parse(request.body).id)).toEqual(['cancel-1']);
	});
});
