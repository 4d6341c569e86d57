'use strict';
/**
 * Small workflows around a webhook trigger, in n8n's import format, for the end-to-end tests and the
 * bench: the Contact Form Trigger (automatic registration) followed by a No Op, and n8n's own Webhook
 * node with Header Auth followed by the same No Op (what a user would build instead).
 */
const crypto = require('node:crypto');

const PACKAGE = 'n8n-nodes-site-management';

/** A stable UUID-shaped id from a seed, so a workflow keeps its webhook id between imports. */
function idFrom(seed) {
	const hex = crypto.createHash('sha256').update(seed).digest('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function noOpAfter(trigger) {
	return {
		nodes: [
			trigger,
			{
				parameters: {},
				id: idFrom(`${trigger.id}/noop`),
				name: 'No Op',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
			},
		],
		connections: { [trigger.name]: { main: [[{ node: 'No Op', type: 'main', index: 0 }]] } },
	};
}

function workflow(id, name, trigger) {
	return {
		id,
		name,
		...noOpAfter(trigger),
		active: false,
		settings: { executionOrder: 'v1', saveManualExecutions: true },
		pinData: {},
	};
}

/** Contact Form Trigger (automatic, Tenant API credential) -> No Op. */
function contactFormTriggerWorkflow({ id, credential, path = 'contact-form' }) {
	return workflow(id, `Contact Form Trigger to No Op (${id})`, {
		parameters: {
			registration: 'automatic',
			authentication: 'tenantToken',
			path,
			ignoreRepeats: true,
			options: {},
		},
		id: idFrom(`${id}/trigger`),
		name: 'Contact form',
		type: `${PACKAGE}.siteContactFormTrigger`,
		typeVersion: 1,
		position: [0, 0],
		credentials: { siteTenantApi: { id: credential.id, name: credential.name } },
		webhookId: idFrom(`${id}/webhook`),
	});
}

/** n8n's Webhook node (POST, Header Auth credential) -> No Op. */
function webhookNodeWorkflow({ id, credential, path }) {
	return workflow(id, `Webhook node to No Op (${id})`, {
		parameters: {
			httpMethod: 'POST',
			path,
			authentication: 'headerAuth',
			options: {},
		},
		id: idFrom(`${id}/trigger`),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		credentials: { httpHeaderAuth: { id: credential.id, name: credential.name } },
		webhookId: idFrom(`${id}/webhook`),
	});
}

module.exports = { contactFormTriggerWorkflow, webhookNodeWorkflow };
