/**
 * When the trigger answers the site's delivery. The site delivers at least once: until it gets a 2xx
 * it delivers again. Answering on receipt is fastest, but in queue mode the answer goes out when the
 * webhook process has queued the execution, so a worker that crashes mid-run loses that submission.
 * Answering when the workflow has finished leaves a crashed or failed run unacknowledged, and the
 * site's next attempt runs it again (the workflow should then be safe to repeat).
 * Ignore Repeated Submissions claims a submission when it is received, so with it on a crashed run's
 * redelivery counts as a repeat and is not started again: the two options pull in opposite directions.
 */
import type { INodeProperties } from 'n8n-workflow';

const ACKNOWLEDGE_ON_RECEIPT = 'onReceived';
const ACKNOWLEDGE_WHEN_FINISHED = 'lastNode';

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
				'Answer only after the workflow ran to the end. If it fails or its worker crashes, the site gets no success answer and delivers the submission again; turn Ignore Repeated Submissions off for that redelivery to start the workflow, and make the workflow safe to repeat.',
		},
	],
	default: ACKNOWLEDGE_ON_RECEIPT,
};

/** The webhook's responseMode, read from the option for each request. */
export const acknowledgeResponseMode = `={{$parameter["options"]["acknowledge"] === "${ACKNOWLEDGE_WHEN_FINISHED}" ? "${ACKNOWLEDGE_WHEN_FINISHED}" : "${ACKNOWLEDGE_ON_RECEIPT}"}}`;
