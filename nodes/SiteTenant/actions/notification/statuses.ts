import type { INodePropertyOptions } from 'n8n-workflow';

/** How the site editor shows a notification: the service's four statuses. */
export const NOTIFICATION_STATUSES: INodePropertyOptions[] = [
	{ name: 'Error', value: 'error' },
	{ name: 'Info', value: 'info' },
	{ name: 'Success', value: 'success' },
	{ name: 'Warning', value: 'warning' },
];
