import type { FastifyInstance } from 'fastify';
import { validationFailed } from '../errors/api-error';
import { tenantOf } from '../context';
import { errorResponses, tenantSecurity } from '../schemas/common';

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

interface NotificationBody {
	id: string | number;
	message: string;
	status: string;
}

export default async function notificationRoutes(app: FastifyInstance) {
	const { store } = app.site;

	app.post<{ Body: NotificationBody }>(
		'/api/notifications',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Show a status notification in the editor; the same id again replaces it',
				tags: ['tenant'],
				security: tenantSecurity,
				body: {
					type: 'object',
					required: ['id', 'message', 'status'],
					additionalProperties: false,
					properties: {
						id: { type: ['string', 'integer'], minLength: 1, maxLength: 200, description: 'string (integers are stored as strings)' },
						message: { type: 'string', minLength: 1, maxLength: 2000 },
						status: { type: 'string', enum: STATUSES },
					},
				},
				response: {
					200: {
						type: 'object',
						required: ['message', 'notification'],
						properties: { message: { type: 'string' }, notification: notificationSchema },
					},
					...errorResponses,
				},
			},
		},
		async (request) => {
			const { message, status } = request.body;
			const id = String(request.body.id);
			if (id.length > 200) throw validationFailed([{ field: 'id', problem: 'must NOT have more than 200 characters' }]);
			const notification = store.notifications.save(tenantOf(request).pk, id, message, status);
			return { message: 'Notification saved.', notification };
		},
	);

	app.get(
		'/api/notifications',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'List the notifications, most recently updated first',
				tags: ['tenant'],
				security: tenantSecurity,
				'x-extension': true,
				response: {
					200: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: notificationSchema } } },
					...errorResponses,
				},
			} as Record<string, unknown>,
		},
		async (request) => ({ data: store.notifications.list(tenantOf(request).pk) }),
	);
}
