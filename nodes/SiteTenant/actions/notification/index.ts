import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import { inToolForm, outsideToolForm } from '../../../shared/toolForm';
import * as send from './send.operation';
import * as sendAndWait from './sendAndWait.operation';

const SEND: INodePropertyOptions = {
	name: 'Send',
	value: 'send',
	description: 'Show a status notification (info, success, warning or error) in the site editor',
	action: 'Send a notification',
};

const SEND_AND_WAIT: INodePropertyOptions = {
	name: 'Send and Wait for Approval',
	value: SEND_AND_WAIT_OPERATION,
	description:
		"Ask the site's owner in the site editor to approve, with approve and decline links, and wait for the decision",
	action: 'Send a notification and wait for approval',
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['notification'], ...outsideToolForm } },
		options: [SEND, SEND_AND_WAIT],
		default: 'send',
	},
	// As an agent's tool the node does not wait: n8n 2.x offers the approval to agents as the
	// generated review tool instead, which gates another tool's call.
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['notification'], ...inToolForm } },
		options: [SEND],
		default: 'send',
	},
	...send.description,
	...sendAndWait.description,
];

export const handlers: OperationHandlers = {
	send: send.execute,
};

export const { sendAndWaitForApproval } = sendAndWait;
