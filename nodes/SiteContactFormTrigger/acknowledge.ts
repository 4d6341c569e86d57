/**
 * When the trigger answers the site's delivery. The site delivers at least once: until it gets a 2xx
 * it delivers again. Answering on receipt is fastest, but in queue mode the answer goes out when the
 * webhook process has queued the execution, so a worker that crashes mid-run loses that submission.
 * Answering when the workflow has finished leaves a crashed or failed run unacknowledged, and the
 * site's next attempt runs it again (the workflow should then be safe to repeat).
 */
import type { INodeProperties } from 'n8n-workflow';

export const ACKNOWLEDGE_ON_RECEIPT = 'onReceived';
export const ACKNOWLEDGE_WHEN_FINISHED = 'lastNode';

/** An entry of the trigger's Options collection. */
export const acknowledgeOption: INodeProperties = {
	displayName: 'Acknowledge Delivery',
	name: 'acknowledge',
	type: 'options',
	options: [
		{
			name: 'On Receipt',
			value: ACKNOWLEDGE_ON_RECEIPT,
			description:
				'Answer the site as soon as the submission is accepted. Fastest; if the process running the workflow crashes, that submission is lost.',
		},
		{
			name: 'When the Workflow Has Finished',
			value: ACKNOWLEDGE_WHEN_FINISHED,
			description:
				'Answer only after the workflow ran to the end. If it fails or its worker crashes, the site gets no success answer and delivers the submission again.',
		},
	],
	default: ACKNOWLEDGE_ON_RECEIPT,
};

/**
 * The webhook's responseMode and responseData, read from the option: n8n evaluates them per request.
 * When finished, the answer has no body (the workflow's output stays in n8n); on receipt n8n's usual
 * answer stays (responseData empty).
 */
export const acknowledgeWebhookDescription = {
	responseMode: `={{$parameter["options"]["acknowledge"] === "${ACKNOWLEDGE_WHEN_FINISHED}" ? "${ACKNOWLEDGE_WHEN_FINISHED}" : "${ACKNOWLEDGE_ON_RECEIPT}"}}`,
	responseData: `={{$parameter["options"]["acknowledge"] === "${ACKNOWLEDGE_WHEN_FINISHED}" ? "noData" : ""}}`,
};
