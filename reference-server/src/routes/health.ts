import type { FastifyInstance } from 'fastify';

export default async function healthRoutes(app: FastifyInstance) {
	app.get(
		'/health',
		{
			schema: {
				operationId: 'getHealth',
				summary: 'Liveness check',
				'x-extension': true,
				response: {
					200: {
						type: 'object',
						required: ['status'],
						properties: { status: { type: 'string', enum: ['ok'] } },
					},
				},
			},
		},
		async () => ({ status: 'ok' }),
	);
}
