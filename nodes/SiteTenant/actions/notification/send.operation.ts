/**
 * Notification > Send: `POST /api/notifications` with `{id, message, status}`. Sending the same ID
 * again replaces that notification, so one ID can report the progress of one job.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { recordIn } from '../../../shared/json';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { requireString } from '../../../shared/validation';
import { NOTIFICATION_STATUSES } from './statuses';

const properties: INodeProperties[] = [
	{
		displayName: 'Notification ID',
		name: 'notificationId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'import-2024-05',
		description:
			'ID of the notification; sending the same ID again replaces it (e.g. progress of one job)',
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		default: '',
		required: true,
		description: 'Text shown in the site editor',
	},
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		options: NOTIFICATION_STATUSES,
		default: 'info',
		description: 'How the notification is shown',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['notification'], operation: ['send'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	const body: IDataObject = {
		id: requireString(this, 'notificationId', itemIndex, 'Notification ID'),
		message: requireString(this, 'message', itemIndex, 'Message'),
		status: this.getNodeParameter('status', itemIndex, 'info') as string,
	};
	const response = await siteRequest.call(
		this,
		{ method: 'POST', path: '/api/notifications', body },
		{ itemIndex, target },
	);
	return recordIn(response, 'notification');
}
