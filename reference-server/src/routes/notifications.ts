import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { tenantOf } from '../context';
import {
	listNotificationsResponses,
	notificationBody,
	saveNotificationResponses,
} from '../schemas/notifications';

const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store } = app.site;

	app.post(
		'/api/notifications',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'createNotification',
				summary: 'Show a status notification in the editor; the same id again replaces it',
				body: notificationBody,
				response: saveNotificationResponses,
			},
		},
		async (request) => {
			const { id, message, status } = request.body;
			// An integer id is stored as its text (a few characters: the schema bounds string ids).
			const pk = tenantOf(request).pk;
			const notification = store.notifications.save(pk, String(id), message, status);
			return { message: 'Notification saved.', notification };
		},
	);

	// Extension routes only from here: none with --no-extensions (plugins/extensions.ts).
	if (!app.site.config.extensions) return;

	app.get(
		'/api/notifications',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'listNotifications',
				summary: 'List the notifications, most recently updated first',
				'x-extension': true,
				response: listNotificationsResponses,
			},
		},
		async (request) => ({ data: store.notifications.list(tenantOf(request).pk) }),
	);
};

export default notificationRoutes;
