/**
 * What an end-to-end wait on a contact-form delivery prints when it times out (issue 42): waitFor's
 * `explain`, and deliveryReport (e2e/n8n/lib/stack.js) with the site's record of the delivery, every
 * attempt the reference server logged with the receiver's answer and the time between attempts, and
 * the tail of n8n's log.
 */
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const processes = require('../../scripts/lib/process') as {
	waitFor<T>(
		what: string,
		check: () => Promise<T>,
		options?: { timeoutMs?: number; everyMs?: number; explain?: () => Promise<string> },
	): Promise<T>;
};
type SiteClient = (
	method: string,
	path: string,
	body?: unknown,
) => Promise<{ data: { data: Array<{ state: string }> } }>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const e2eStack = require('../../e2e/n8n/lib/stack') as {
	startReferenceServer(options: object): Promise<{ url: string; close(): Promise<void> }>;
	addTenant(server: object, id: string): Promise<{ client: SiteClient }>;
	deliveryReport(options: object): Promise<string>;
};

describe('waitFor explain', () => {
	it('ends the timeout error with what explain() says', async () => {
		await expect(
			processes.waitFor('something', async () => undefined, {
				timeoutMs: 50,
				everyMs: 10,
				explain: async () => 'the state it waited on',
			}),
		).rejects.toThrow(/timed out after .* waiting for something\nthe state it waited on$/);
	});

	it('says when explain() itself fails', async () => {
		await expect(
			processes.waitFor('something', async () => undefined, {
				timeoutMs: 50,
				everyMs: 10,
				explain: async () => {
					throw new Error('site down');
				},
			}),
		).rejects.toThrow(/\n\(could not say why: site down\)$/);
	});
});

describe('deliveryReport', () => {
	let receiver: Server;
	let server: { url: string; close(): Promise<void> };
	let userFolder: string;
	const answers = [503, 503, 401];

	beforeAll(async () => {
		receiver = createServer((request, response) => {
			request.resume();
			response.writeHead(answers.shift() ?? 200, { connection: 'close' }).end();
		});
		await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
		server = await e2eStack.startReferenceServer({
			deliveryRetryBaseMs: 50,
			deliverySetupGraceMs: 0,
			webhookAllow: 'loopback',
		});
		userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'delivery-report-'));
		fs.mkdirSync(path.join(userFolder, '.n8n'));
		fs.writeFileSync(path.join(userFolder, 'n8n.log'), 'first line\nWebhook received\n');
	});

	afterAll(async () => {
		await server?.close();
		await new Promise((resolve) => receiver?.close(resolve));
		fs.rmSync(userFolder, { recursive: true, force: true });
	});

	it("lists the submission's attempts with the receiver's answers, the delays, and n8n's log tail", async () => {
		const tenant = await e2eStack.addTenant(server, 'report');
		const { port } = receiver.address() as { port: number };
		await tenant.client('POST', '/api/settings', {
			contact_form_webhook_url: `http://127.0.0.1:${port}/hook`,
		});
		const submitted = await fetch(`${server.url}/forms/report/contact`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ message: 'hello' }),
		});
		const { submission_id: submissionId } = (await submitted.json()) as { submission_id: string };
		const inState = async (state: string) =>
			(await tenant.client('GET', '/api/contact-form/deliveries')).data.data.find(
				(delivery) => delivery.state === state,
			);

		// The 401 ends the delivery (no set-up grace here). Once it has, a wait for "delivered" can
		// only run out, and explains itself: the report is made after the last attempt, whatever the
		// machine's speed (the 30 s is a hang guard; the three attempts take a fraction of a second).
		await processes.waitFor('the delivery to fail', async () => await inState('failed'), {
			timeoutMs: 30_000,
			everyMs: 50,
		});
		const report = processes.waitFor(
			'the delivery to be delivered',
			async () => await inState('delivered'),
			{
				timeoutMs: 50,
				everyMs: 50,
				explain: () =>
					e2eStack.deliveryReport({ server, site: tenant.client, submissionId, userFolder }),
			},
		);
		const error = (await report.catch((caught: Error) => caught)) as Error;
		expect(error.message).toContain(`deliveries of ${submissionId}:`);
		expect(error.message).toContain('"state":"failed"');
		expect(error.message).toMatch(/attempt 1: delivery will be retried, HTTP 503, next in \d+ ms/);
		expect(error.message).toMatch(
			/\(\+\d+ ms\) \S+ attempt 2: delivery will be retried, HTTP 503, next in \d+ ms/,
		);
		expect(error.message).toMatch(
			/attempt 3: delivery stopped: the receiver rejected it, HTTP 401/,
		);
		expect(error.message).toContain('n8n log, last lines:\nfirst line\nWebhook received');
	});
});
