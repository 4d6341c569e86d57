import { Type } from '@sinclair/typebox';
import { dataList, responseObject, strictObject } from './common';

const STATUSES = ['info', 'success', 'warning', 'error'];

const notificationSchema = responseObject({
	id: { type: 'string' },
	message: { type: 'string' },
	status: { type: 'string', enum: STATUSES },
	created_at: { type: 'string', format: 'date-time' },
	updated_at: { type: 'string', format: 'date-time' },
});

export const notificationBody = strictObject({
	id: Type.Unsafe<string | number>({
		type: ['string', 'integer'],
		minLength: 1,
		maxLength: 200,
		description: 'string (integers are stored as strings)',
	}),
	message: Type.String({ minLength: 1, maxLength: 2000 }),
	status: Type.Unsafe<string>({ type: 'string', enum: STATUSES }),
});

export const saveNotificationResponses = {
	200: responseObject({ message: { type: 'string' }, notification: notificationSchema }),
} as const;

export const listNotificationsResponses = { 200: dataList(notificationSchema) } as const;
