import type { FastifyBaseLogger } from 'fastify';
import type { TestWebhookTarget } from '../db/contact-form-test-webhooks';
import { postWebhook } from './post';
import { type TargetPolicy, portOf } from './target-policy';
import { DELIVERY_MARK_HEADER } from './worker';

export interface TestCopySenderOptions {
	targets: TargetPolicy;
	logger: FastifyBaseLogger;
	timeoutMs: number;
	/** Copies in flight at once; more are not sent (a copy is best effort, the live delivery counts). */
	maxInFlight: number;
}

/**
 * Sends a copy of a new submission to each test webhook: one attempt, nothing stored, nothing
 * retried (the live delivery is the one that counts; a test listener that is gone answers 404 and
 * loses nothing). Same body, headers, target policy and reply cap as a live delivery; logs carry no
 * URL and no header value.
 */
export class TestCopySender {
	private inFlight = 0;

	constructor(private readonly options: TestCopySenderOptions) {}

	/** Copies being sent right now. */
	get sending(): number {
		return this.inFlight;
	}

	send(targets: TestWebhookTarget[], body: Record<string, unknown>): void {
		const text = JSON.stringify(body);
		for (const target of targets) {
			if (this.inFlight >= this.options.maxInFlight) {
				this.options.logger.info(
					{ inFlight: this.inFlight },
					'test copy of a contact-form submission not sent: too many copies in flight',
				);
				continue;
			}
			this.inFlight++;
			void this.sendOne(target, text)
				.catch((err: Error & { code?: string }) => {
					this.options.logger.info(
						{ error: err.code ?? err.name },
						'test copy of a contact-form submission not delivered',
					);
				})
				.finally(() => {
					this.inFlight--;
				});
		}
	}

	private async sendOne(target: TestWebhookTarget, body: string): Promise<void> {
		const url = new URL(target.url);
		const refused = this.options.targets.refusalForUrl(url);
		if (refused !== undefined) throw Object.assign(new Error('refused'), { code: 'REFUSED' });
		const reply = await postWebhook(url, {
			headers: {
				...target.headers,
				'content-type': 'application/json',
				'user-agent': 'site-reference-server',
				[DELIVERY_MARK_HEADER]: 'test-copy',
			},
			body,
			signal: AbortSignal.timeout(this.options.timeoutMs),
			lookup: this.options.targets.lookupFor(portOf(url)),
		});
		this.options.logger.debug(
			{ status: reply.status },
			'test copy of a contact-form submission sent',
		);
	}
}
