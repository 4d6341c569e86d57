/**
 * The approval links of Notification > Send and Wait for Approval (sendAndWait.operation.ts), on
 * n8n's waiting webhook: opening one (GET) shows a page asking to confirm and decides nothing, so a
 * link preview or a mail scanner cannot approve; confirming (POST, to the same signed URL) resumes
 * the execution with the decision, and the page says what was decided.
 */
import type {
	IDataObject,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { APPROVAL_PAGE_CSP, confirmationPage, decisionPage } from './approvalPage';

/**
 * n8n's waiting webhooks of the node (as its send-and-wait nodes declare them): the signed resume URL
 * of a waiting execution, opened (GET) or confirmed (POST).
 */
export const APPROVAL_WEBHOOKS: IWebhookDescription[] = (['GET', 'POST'] as const).map(
	(httpMethod) => ({
		name: 'default',
		httpMethod,
		responseMode: 'onReceived',
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	}),
);

/** The query parameter the signed links carry: "true" approves, "false" declines. */
export const APPROVED_QUERY = 'approved';

function labelOf(ctx: IWebhookFunctions, approved: boolean): string {
	const options = ctx.getNodeParameter('approvalOptions', {}) as IDataObject;
	const label = approved ? options.approveLabel : options.declineLabel;
	return typeof label === 'string' && label.trim() !== ''
		? label
		: approved
			? 'Approve'
			: 'Decline';
}

export async function approvalWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	const response = this.getResponseObject();
	const approved = request.query?.[APPROVED_QUERY] === 'true';
	response.setHeader('Content-Security-Policy', APPROVAL_PAGE_CSP);
	response.setHeader('Cache-Control', 'no-store');
	if (request.method !== 'POST') {
		response
			.status(200)
			.type('html')
			.send(confirmationPage(labelOf(this, approved)));
		return { noWebhookResponse: true };
	}
	response.status(200).type('html').send(decisionPage(approved));
	return {
		noWebhookResponse: true,
		workflowData: [
			[
				{
					json: {
						approved,
						decision: approved ? 'approved' : 'declined',
						decidedAt: new Date().toISOString(),
					},
					// The decision answers the request made from the first input item's parameters.
					pairedItem: { item: 0 },
				},
			],
		],
	};
}
