'use strict';
/**
 * n8n's REST API as the editor uses it: the owner's set-up and login, and a logged-in client that
 * creates, publishes and runs workflows. `n8n execute` does not use the queue in queue mode (it falls
 * back to regular mode), so a queue-mode stack runs workflows with `POST /rest/workflows/:id/run`;
 * with OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS the run goes to a worker.
 */
const path = require('node:path');

const { RUNTIME, RUNTIME_MODULES } = require('./runtime');
const { sleep } = require('./process');
const { timed } = require('./timings');

/** How long an ended execution's run data may lag behind its status (see waitForExecution). */
const DATA_GRACE_MS = 30000;

// The cookie is bound to this browser id (n8n checks it on every /rest call).
const BROWSER_ID = 'site-management-start';

/**
 * Sets up n8n's owner account through the REST API (n8n 2.x asks for one before anything else):
 * `POST /rest/owner/setup`. Answers {created: true} or {created: false} when an owner already exists.
 */
async function setupOwner(baseUrl, owner, { waitMs = 30000 } = {}) {
	const deadline = Date.now() + waitMs;
	let response;
	let text;
	// n8n 1.x answers its health check before it has mounted /rest: a 404 there means "not yet", as
	// does a 503 ("Database is not ready!") while its database connection is checked under load.
	do {
		if (response) await sleep(250);
		response = await fetch(`${baseUrl}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
			body: JSON.stringify(owner),
		});
		text = await response.text();
	} while ([404, 503].includes(response.status) && Date.now() < deadline);
	if (response.ok) return { created: true };
	if (response.status === 400 && /already/i.test(text)) return { created: false };
	throw new Error(`owner setup failed: HTTP ${response.status} ${text.slice(0, 500)}`);
}

/** Logs in as the owner; resolves to the cookie header for /rest calls. */
async function login(baseUrl, { email, password }) {
	const response = await fetch(`${baseUrl}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
		body: JSON.stringify({ emailOrLdapLoginId: email, password }),
	});
	if (!response.ok)
		throw new Error(
			`login failed: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`,
		);
	const cookies =
		typeof response.headers.getSetCookie === 'function'
			? response.headers.getSetCookie()
			: [response.headers.get('set-cookie')];
	return cookies
		.filter(Boolean)
		.map((cookie) => cookie.split(';')[0])
		.join('; ');
}

/** n8n's stored run data (execution_data.data), which n8n writes with `flatted`. */
function parseFlatted(text) {
	const { parse } = require(path.join(RUNTIME_MODULES, 'flatted'));
	return parse(text);
}

/**
 * `call(method, urlPath, body)`: n8n's REST API with a logged-in cookie, as the editor calls it;
 * resolves to the answer's `data` and throws on an error status.
 */
function restCall(mainUrl, cookie) {
	return async (method, urlPath, body) => {
		const response = await fetch(`${mainUrl}/rest${urlPath}`, {
			method,
			headers: {
				cookie,
				'browser-id': BROWSER_ID,
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
			},
			body: body !== undefined ? JSON.stringify(body) : undefined,
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(
				`n8n ${method} /rest${urlPath}: HTTP ${response.status} ${text.slice(0, 500)}`,
			);
		return text ? JSON.parse(text).data : undefined;
	};
}

/**
 * The owner set up on each n8n (by URL) by this process: the test helpers of one file set it up
 * once and log in with it from then on, whoever asks (see ownerOf).
 */
const owners = new Map();

/** The owner account of the n8n at `baseUrl`: the one set up from this process, else `owner`. */
async function ownerOf(baseUrl, owner) {
	const known = owners.get(baseUrl);
	if (known) return known;
	await setupOwner(baseUrl, owner);
	owners.set(baseUrl, owner);
	return owner;
}

/** Sets up the owner (once) and logs in; returns a client bound to main's URL and the cookie. */
async function restClient(mainUrl, owner) {
	const call = restCall(mainUrl, await login(mainUrl, await ownerOf(mainUrl, owner)));

	/** Starts a manual run from the trigger `trigger`; resolves with the execution id. */
	const runWorkflow = async (workflowId, trigger = 'Start') => {
		const body = { triggerToStartFrom: { name: trigger } };
		if (RUNTIME.manualRunSendsWorkflow)
			body.workflowData = await call('GET', `/workflows/${workflowId}`);
		const result = await call('POST', `/workflows/${workflowId}/run`, body);
		if (!result?.executionId)
			throw new Error(`n8n did not start workflow ${workflowId}: ${JSON.stringify(result)}`);
		return String(result.executionId);
	};

	/**
	 * The execution once it has ended (or, with `until`, once its status is one of those, e.g.
	 * ['waiting'] for one that waits for a person): {id, status, run} (run: the IRun data with resultData).
	 */
	const waitForExecution = (executionId, options) =>
		timed('wait', 'an execution to end', () => pollExecution(executionId, options));
	// `withNode`: the node the ended run must show (n8n 1.x's first read of a run resumed from a wait
	// can hold the data stored when it began waiting, status already ended).
	const pollExecution = async (executionId, { timeoutMs = 120000, until, withNode } = {}) => {
		const deadline = Date.now() + timeoutMs;
		let endedAt;
		const reached = (status) =>
			until ? until.includes(status) : !['new', 'running', 'waiting', 'unknown'].includes(status);
		while (Date.now() < deadline) {
			// A connection n8n dropped while busy (ECONNRESET) is asked again, as any other poll. (By
			// name: under jest, fetch's TypeError is another realm's, so `instanceof` misses it.)
			const execution = await call('GET', `/executions/${executionId}`).catch((error) => {
				if (error?.name === 'TypeError' && /fetch failed/.test(error.message)) return undefined;
				throw error;
			});
			if (execution && reached(execution.status)) {
				const data =
					typeof execution.data === 'string' ? parseFlatted(execution.data) : execution.data;
				// n8n 1.x on SQLite stores an ended execution's status, then its data, in two writes: a
				// read between them has no run data yet. Asked again for up to DATA_GRACE_MS.
				endedAt ??= Date.now();
				const complete = data?.resultData && (!withNode || data.resultData.runData?.[withNode]);
				if (complete || Date.now() - endedAt > DATA_GRACE_MS)
					return { id: String(execution.id), status: execution.status, run: { data } };
			}
			await sleep(250);
		}
		throw new Error(`execution ${executionId} did not end within ${timeoutMs} ms`);
	};

	/** Runs a workflow and waits for it; throws with the node's error when it did not succeed. */
	const runAndWait = async (workflowId, options) => {
		const execution = await waitForExecution(
			await runWorkflow(workflowId, options?.trigger),
			options,
		);
		if (execution.status !== 'success') {
			const error = execution.run.data?.resultData?.error;
			throw new Error(
				`execution ${execution.id} of ${workflowId} ended ${execution.status}: ${error ? `${error.node?.name ?? ''}: ${error.message}` : ''}`,
			);
		}
		return execution;
	};

	/** Activates (publishes) a workflow as the editor does; main registers its triggers. */
	const activateWorkflow = async (workflowId) => {
		const { versionId } = await call('GET', `/workflows/${workflowId}`);
		return await call('POST', `/workflows/${workflowId}/activate`, { versionId });
	};

	return { call, runWorkflow, waitForExecution, runAndWait, activateWorkflow };
}

module.exports = { setupOwner, ownerOf, login, restCall, restClient, parseFlatted };
