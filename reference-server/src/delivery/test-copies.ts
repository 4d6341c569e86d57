import type { FastifyBaseLogger } from 'fastify';
import type { TestWebhookTarget } from '../db/contact-form-test-webhooks';
import { postSubmission } from './post';
import type { TargetPolicy } from './target-policy';

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
 * loses nothing). The same POST as a live delivery (post.ts); logs carry no URL and no header value.
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
		const reply = await postSubmission(this.options.targets, new URL(target.url), {
			headers: target.headers,
			body,
			mark: 'test-copy',
			signal: AbortSignal.timeout(this.options.timeoutMs),
		});
		this.options.logger.debug(
			{ status: reply.status },
			'test copy of a contact-form submission sent',
		);
	}
}
