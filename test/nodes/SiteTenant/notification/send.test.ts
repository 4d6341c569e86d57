/** Tenant node, Notification > Send. */
import { useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('Notification > Send', () => {
	test('sends a notification; the same id again replaces it', async () => {
		const tenant = await ctx.tenant('notify');
		const send = (message: string, status: string) =>
			tenant.run({
				resource: 'notification',
				operation: 'send',
				notificationId: 'import-42',
				message,
				status,
			});

		const started = await send('Import started', 'info');
		expect(started.error).toBeUndefined();
		// The output is the notification itself.
		expect(started.items[0].json).toMatchObject({
			id: 'import-42',
			message: 'Import started',
			status: 'info',
		});
		expect(started.items[0].json).not.toHaveProperty('notification');

		expect((await send('Import 50% done', 'warning')).items[0].json).toMatchObject({
			id: 'import-42',
			message: 'Import 50% done',
			status: 'warning',
		});
		expect((await send('Import finished', 'success')).error).toBeUndefined();
		const other = await tenant.run({
			resource: 'notification',
			operation: 'send',
			notificationId: 'other',
			message: 'Failed',
			status: 'error',
		});
		expect(other.error).toBeUndefined();

		const list = (await tenant.client.get('/api/notifications')).data.data as Array<
			Record<string, unknown>
		>;
		expect(
			list
				.map(({ id, message, status }) => ({ id, message, status }))
				.sort((a, b) => String(a.id).localeCompare(String(b.id))),
		).toEqual([
			{ id: 'import-42', message: 'Import finished', status: 'success' },
			{ id: 'other', message: 'Failed', status: 'error' },
		]);
	});

	test('a status outside the list is refused by the server with the field named', async () => {
		const tenant = await ctx.tenant('notify-bad');
		const result = await tenant.run(
			{
				resource: 'notification',
				operation: 'send',
				notificationId: 'n',
				message: 'm',
				status: '={{ $json.status }}',
			},
			{ input: [{ json: { status: 'panic' } }] },
		);
		expect(result.error?.httpCode).toBe('400');
		expect(result.error?.description).toMatch(/^status: /m);
		expect((await tenant.client.get('/api/notifications')).data.data).toEqual([]);
	});
});
