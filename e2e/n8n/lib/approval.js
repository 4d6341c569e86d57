'use strict';
/**
 * The approval steps of the examples as a person gives them. The fleet rollout
 * (examples/fleet-rollout.json), started through n8n's REST API, stops at its Wait node; the approval
 * request it left ("Ask for approval") holds an approve and a reject link, n8n's resume URL of that
 * Wait node; following one resumes the execution with the decision. The AI content chain and the
 * agent example's review of tool calls ask through Send and Wait for Approval instead: their links
 * are in the site's notifications, and confirming one (a POST) decides.
 */
const n8nCommands = require('../../../scripts/lib/n8n');

const APPROVAL_NODE = 'Ask for approval';
const ENDED = ['success', 'error', 'crashed', 'canceled'];

/**
 * The approve and reject links of an approval request's message, and `none`: the resume URL they
 * share, without a decision (a link a person could open by mistake, or cut short).
 */
function approvalLinks(message) {
	const approve = /Approve: (\S+)/.exec(message)?.[1];
	const none = approve && new URL(approve);
	none?.searchParams.delete('decision');
	return { approve, reject: /Reject: (\S+)/.exec(message)?.[1], none: none?.href };
}

/**
 * Starts the workflow (rest: scripts/lib/rest.js restClient) and resolves once it waits for the
 * approval: {id, run, request (the approval request's item), links}. Throws if it ended instead.
 */
async function runToApproval(rest, workflowId) {
	const id = await rest.runWorkflow(workflowId);
	let execution = await rest.waitForExecution(id, { until: ['waiting', ...ENDED] });
	// n8n 1.x can report the execution waiting a moment before it has stored the nodes that ran.
	for (let tries = 0; execution.status === 'waiting' && !ranApprovalNode(execution); tries++) {
		if (tries === 20) break;
		await new Promise((resolve) => setTimeout(resolve, 250));
		execution = await rest.waitForExecution(id, { until: ['waiting', ...ENDED] });
	}
	if (execution.status !== 'waiting') {
		const error = execution.run.data?.resultData?.error;
		throw new Error(
			`execution ${id} ended ${execution.status} before the approval${error ? `: ${error.node?.name ?? ''}: ${error.message}` : ''}`,
		);
	}
	const [request] = n8nCommands.nodeItems(execution.run, APPROVAL_NODE);
	return { id, run: execution.run, request, links: approvalLinks(request.message) };
}

function ranApprovalNode(execution) {
	return Boolean(execution.run?.data?.resultData?.runData?.[APPROVAL_NODE]);
}

/** A browser's user agent: n8n answers a bot (a mail scanner opening links) without resuming. */
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** Follows a decision link as a person's browser does: {status, text}. */
async function followLink(link) {
	const response = await fetch(link, { headers: { 'user-agent': BROWSER } });
	return { status: response.status, text: await response.text() };
}

/**
 * Follows the link (approve, reject or none), then resolves to the ended execution ({id, status,
 * run}); `options`: waitForExecution's (`withNode`: a node the ended run must show).
 */
async function decide(rest, waiting, decision, options = {}) {
	const answer = await followLink(waiting.links[decision]);
	if (answer.status !== 200)
		throw new Error(`the ${decision} link answered ${answer.status}: ${answer.text.slice(0, 300)}`);
	return await rest.waitForExecution(waiting.id, options);
}

/**
 * Notification > Send and Wait for Approval (the AI content chain's "Ask for approval"): starts the
 * workflow and resolves once it waits, with the request the site's owner reads among the site's
 * notifications (`notification`: reads it) and its links: {id, request, links: {approve, reject}}.
 */
async function runToSiteApproval(rest, workflowId, notification) {
	const id = await rest.runWorkflow(workflowId);
	const execution = await rest.waitForExecution(id, { until: ['waiting', ...ENDED] });
	if (execution.status !== 'waiting') {
		const error = execution.run.data?.resultData?.error;
		throw new Error(
			`execution ${id} ended ${execution.status} before the approval: ${error?.message ?? ''}`,
		);
	}
	const request = await notification();
	return {
		id,
		request,
		links: {
			approve: /Approve: (\S+)/.exec(request?.message ?? '')?.[1],
			reject: /Reject: (\S+)/.exec(request?.message ?? '')?.[1],
		},
	};
}

/** Confirms a Send and Wait for Approval link as the page's button does (a POST): {status, text}. */
async function confirmLink(link) {
	const response = await fetch(link, { method: 'POST', headers: { 'user-agent': BROWSER } });
	return { status: response.status, text: await response.text() };
}

/** Confirms the decision's link, then resolves to the ended execution ({id, status, run}). */
async function decideOnSite(rest, waiting, decision) {
	const answer = await confirmLink(waiting.links[decision]);
	if (answer.status !== 200)
		throw new Error(`the ${decision} link answered ${answer.status}: ${answer.text.slice(0, 300)}`);
	return await rest.waitForExecution(waiting.id);
}

module.exports = {
	confirmLink,
	decideOnSite,
	runToSiteApproval,
	followLink,
	runToApproval,
	decide,
};
