import { Type } from '@sinclair/typebox';

const STATUSES = ['info', 'success', 'warning', 'error'];

const notificationSchema = {
	type: 'object',
	required: ['id', 'message', 'status', 'created_at', 'updated_at'],
	properties: {
		id: { type: 'string' },
		message: { type: 'string' },
		status: { type: 'string', enum: STATUSES },
		created_at: { type: 'string', format: 'date-time' },
		updated_at: { type: 'string', format: 'date-time' },
	},
} as const;

export const notificationBody = Type.Object(
	{
		id: Type.Unsafe<string | number>({
			type: ['string', 'integer'],
			minLength: 1,
			maxLength: 200,
			description: 'string (integers are stored as strings)',
		}),
		message: Type.String({ minLength: 1, maxLength: 2000 }),
		status: Type.Unsafe<string>({ type: 'string', enum: STATUSES }),
	},
	{ additionalProperties: false },
);

export const saveNotificationResponses = {
	200: {
		type: 'object',
		required: ['message', 'notification'],
		properties: { message: { type: 'string' }, notification: notificationSchema },
	},
} as const;

export const listNotificationsResponses = {
	200: {
		type: 'object',
		required: ['data'],
		properties: { data: { type: 'array', items: notificationSchema } },
	},
} as const;
