/**
 * Notification > Send and Wait for Approval: n8n's send-and-wait, as its Slack and Gmail nodes have
 * it. One notification for the node's input (item 0's parameters) asks the site's owner, in the
 * site's editor, to approve; its text carries an approve and a decline link (n8n's signed resume
 * URL; the service shows notifications as text). The execution then waits. A link opens a page that
 * asks to confirm, and confirming resumes the execution with the decision (approvalWebhook.ts): a
 * link preview or scanner opening it decides nothing. With the wait limit reached, n8n goes on with
 * the input items as they came (no `approved`).
 *
 * n8n 2.x also turns a node with this operation into a review tool for AI agents (the generated
 * Site Management Tenant "Human review" tool): its `message` is the tool call to approve.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import {
	NodeOperationError,
	SEND_AND_WAIT_OPERATION,
	updateDisplayOptions,
	WAIT_INDEFINITELY,
} from 'n8n-workflow';

import type { OperationLabels } from '../../../shared/operationLabel';
import { failEveryItem } from '../../../shared/router';
import type { RequestTarget } from '../../../shared/target';
import { resolveTenantTarget } from '../../../shared/target';
import { siteRequest } from '../../../shared/transport';
import { requireString } from '../../../shared/validation';
import { NOTIFICATION_STATUSES } from './statuses';
import { APPROVED_QUERY } from './approvalWebhook';

const MS_PER_UNIT = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

const properties: INodeProperties[] = [
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		default: '',
		required: true,
		typeOptions: { rows: 4 },
		placeholder: 'An AI proposal for /about-us waits for your approval.',
		description:
			"What the site's owner is asked to approve; the approve and decline links follow it in the notification",
	},
	{
		displayName: 'Notification ID',
		name: 'notificationId',
		type: 'string',
		default: '',
		placeholder: 'Empty: approval-<execution ID>',
		description:
			'ID of the notification; sending the same ID again replaces it (a later message about the same approval can replace the request)',
	},
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Approve Label',
				name: 'approveLabel',
				type: 'string',
				default: 'Approve',
				description: 'The text before the approve link, and the button that confirms it',
			},
			{
				displayName: 'Decline Label',
				name: 'declineLabel',
				type: 'string',
				default: 'Decline',
				description: 'The text before the decline link, and the button that confirms it',
			},
			{
				displayName: 'Limit Unit',
				name: 'limitUnit',
				type: 'options',
				options: [
					{ name: 'Minutes', value: 'minutes' },
					{ name: 'Hours', value: 'hours' },
					{ name: 'Days', value: 'days' },
				],
				default: 'hours',
			},
			{
				displayName: 'Limit Wait Time',
				name: 'limitWaitTime',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0, numberPrecision: 2 },
				description:
					'How long to wait for a decision, in Limit Unit; 0 waits until someone decides. When the limit is reached the workflow goes on with the input items, without "approved".',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: NOTIFICATION_STATUSES,
				default: 'warning',
				description: 'How the notification is shown in the site editor',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['notification'], operation: [SEND_AND_WAIT_OPERATION] } },
	properties,
);

interface ApprovalOptions {
	approveLabel?: string;
	declineLabel?: string;
	limitWaitTime?: number;
	limitUnit?: keyof typeof MS_PER_UNIT;
	status?: string;
}

/** When the wait ends without a decision: the limit, or never. */
function waitTill(ctx: IExecuteFunctions, options: ApprovalOptions): Date {
	const amount = Number(options.limitWaitTime ?? 0);
	if (!Number.isFinite(amount) || amount < 0) {
		throw new NodeOperationError(ctx.getNode(), 'Limit Wait Time must be a number from 0 up', {
			itemIndex: 0,
		});
	}
	if (amount === 0) return WAIT_INDEFINITELY;
	const unit = MS_PER_UNIT[options.limitUnit ?? 'hours'] ?? MS_PER_UNIT.hours;
	return new Date(Date.now() + amount * unit);
}

/** The notification's text: the message, then each labelled link on a line of its own. */
function approvalText(ctx: IExecuteFunctions, options: ApprovalOptions): string {
	const message = requireString(ctx, 'message', 0, 'Message');
	const approve = ctx.getSignedResumeUrl({ [APPROVED_QUERY]: 'true' });
	const decline = ctx.getSignedResumeUrl({ [APPROVED_QUERY]: 'false' });
	return [
		message,
		'',
		`${options.approveLabel || 'Approve'}: ${approve}`,
		`${options.declineLabel || 'Decline'}: ${decline}`,
	].join('\n');
}

/**
 * Sends the approval request, then puts the execution to wait; the input goes on as it came. A
 * failure before the wait fails every item (On Error decides where they go) and nothing waits.
 */
export async function sendAndWaitForApproval(
	this: IExecuteFunctions,
	labels: OperationLabels,
): Promise<INodeExecutionData[][]> {
	let tenant: string | undefined;
	try {
		const target = await resolveTenantTarget(this, 0);
		tenant = target.tenantId;
		await sendApprovalRequest(this, target);
	} catch (error) {
		return failEveryItem(this, error, { labels, tenant });
	}
	await this.putExecutionToWait(
		waitTill(this, this.getNodeParameter('approvalOptions', 0, {}) as ApprovalOptions),
	);
	return [this.getInputData().map((item, index) => ({ ...item, pairedItem: { item: index } }))];
}

async function sendApprovalRequest(ctx: IExecuteFunctions, target: RequestTarget): Promise<void> {
	const options = ctx.getNodeParameter('approvalOptions', 0, {}) as ApprovalOptions;
	waitTill(ctx, options);
	const body: IDataObject = {
		id:
			String(ctx.getNodeParameter('notificationId', 0, '') ?? '').trim() ||
			`approval-${ctx.getExecutionId()}`,
		message: approvalText(ctx, options),
		status: options.status || 'warning',
	};
	await siteRequest.call(
		ctx,
		{ method: 'POST', path: '/api/notifications', body },
		{ itemIndex: 0, target },
	);
}
