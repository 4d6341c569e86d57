import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { AttemptOutcome, ContactFormRepository, DueDelivery } from '../db/contact-form';
import { isoIn, nowIso } from '../clock';
import { backoffDelayMs, retryAfterMs, verdictFor } from './backoff';
import { postSubmission } from './post';
import { type TargetPolicy, WebhookRefusedError } from './target-policy';

export interface DeliveryWorkerOptions {
	repository: ContactFormRepository;
	/** Where a webhook may point; checked again here after DNS resolution. */
	targets: TargetPolicy;
	logger: FastifyBaseLogger;
	retryBaseMs: number;
	maxAttempts: number;
	timeoutMs: number;
	/** How long after a webhook settings change a not-ready answer is retried (backoff.ts verdictFor). */
	setupGraceMs?: number;
	/** How often to look for due deliveries when nothing wakes the worker. */
	pollIntervalMs?: number;
}

/** Deliveries attempted at the same time. */
const CONCURRENCY = 8;

/** After this long, a close() stops waiting for in-flight deliveries and aborts them. */
const SHUTDOWN_GRACE_MS = 5000;

/**
 * Works off the outbox: claims due pending deliveries, POSTs them, records the outcome. State lives
 * in the database only, so pending deliveries survive a restart and are picked up on start. One
 * process owns a data directory; the in-memory set of ids in flight keeps a row from being attempted
 * twice at the same time.
 *
 * Logs carry delivery ids, attempt numbers and statuses only: the webhook URL (which may hold a secret
 * in its path) and the header values (which do) are never logged.
 */
export class DeliveryWorker {
	private readonly inFlight = new Map<string, Promise<void>>();
	private readonly shutdown = new AbortController();
	private timer: NodeJS.Timeout | undefined;
	private running = false;
	private stopped = false;
	private readonly pollIntervalMs: number;

	constructor(private readonly options: DeliveryWorkerOptions) {
		this.pollIntervalMs = options.pollIntervalMs ?? 100;
	}

	start(): void {
		if (this.running || this.stopped) return;
		this.running = true;
		this.tick();
	}

	/** A new delivery exists: look now rather than at the next poll. */
	notify(): void {
		if (!this.running || this.stopped) return;
		this.schedule(0);
	}

	/** Stops claiming, waits (bounded) for attempts in flight, then aborts the rest without recording them. */
	async stop(): Promise<void> {
		if (this.stopped) return;
		this.stopped = true;
		this.running = false;
		if (this.timer) clearTimeout(this.timer);
		const pending = Promise.allSettled(this.inFlight.values());
		await Promise.race([pending, sleep(SHUTDOWN_GRACE_MS, undefined, { ref: false })]);
		this.shutdown.abort();
		await pending;
	}

	private schedule(delayMs: number): void {
		if (this.stopped) return;
		if (this.timer) clearTimeout(this.timer);
		this.timer = setTimeout(() => this.tick(), delayMs);
		// The worker alone must not keep the process alive.
		this.timer.unref();
	}

	private tick(): void {
		this.timer = undefined;
		if (this.stopped) return;
		try {
			const free = CONCURRENCY - this.inFlight.size;
			if (free > 0) {
				// Ask for enough rows to fill the free slots even if some returned rows are already in flight.
				const due = this.options.repository.due(nowIso(), free + this.inFlight.size);
				for (const delivery of due) {
					if (this.inFlight.size >= CONCURRENCY) break;
					if (this.inFlight.has(delivery.id)) continue;
					const attempt = this.attempt(delivery).finally(() => {
						this.inFlight.delete(delivery.id);
						this.notify();
					});
					this.inFlight.set(delivery.id, attempt);
				}
			}
		} catch (err) {
			this.options.logger.error({ err }, 'delivery worker: could not read the outbox');
		}
		this.schedule(this.pollIntervalMs);
	}

	private async attempt(delivery: DueDelivery): Promise<void> {
		const attemptNumber = delivery.attempts + 1;
		const log = this.options.logger.child({ delivery_id: delivery.id, attempt: attemptNumber });
		if (!delivery.webhook_url) {
			this.finish(delivery.id, 'failed', null, 'The webhook URL is no longer configured.');
			return;
		}
		let status: number | null = null;
		let retryAfter: number | undefined;
		let error: string | null = null;
		const timeout = AbortSignal.timeout(this.options.timeoutMs);
		try {
			const reply = await postSubmission(this.options.targets, new URL(delivery.webhook_url), {
				headers: JSON.parse(delivery.webhook_headers ?? '{}') as Record<string, string>,
				body: JSON.stringify({
					submission_id: delivery.submission_id,
					tenant_id: delivery.tenant_id,
					form: delivery.form,
					submitted_at: delivery.submitted_at,
					fields: JSON.parse(delivery.fields) as unknown,
				}),
				mark: delivery.id,
				signal: AbortSignal.any([timeout, this.shutdown.signal]),
			});
			status = reply.status;
			retryAfter =
				status === 429 || status === 503 ? retryAfterMs(reply.retryAfter ?? null) : undefined;
		} catch (err) {
			if (this.shutdown.signal.aborted) {
				log.info('delivery attempt aborted by shutdown; it stays pending');
				return;
			}
			if (err instanceof WebhookRefusedError) {
				log.warn('delivery stopped: the webhook address is refused');
				this.finish(delivery.id, 'failed', null, `The webhook address is refused: ${err.message}.`);
				return;
			}
			// One wording for a refused connection, a reset, a timeout and a name that does not resolve:
			// telling them apart would show a tenant which ports are open on the hosts it may reach.
			log.info(
				{ code: (err as { code?: string }).code, timedOut: timeout.aborted },
				'delivery attempt failed',
			);
			error = UNREACHABLE;
		}

		const verdict = status === null ? 'retry' : verdictFor(status, this.settingUp(delivery));
		if (verdict === 'delivered') {
			log.info({ status }, 'delivery succeeded');
			this.finish(delivery.id, 'delivered', status, null);
			return;
		}
		// Shown to the tenant and kept: fixed wording, never the URL (its password) or the reply.
		const lastError = error ?? `The webhook answered HTTP ${status}.`;
		if (verdict === 'stop' || attemptNumber >= this.options.maxAttempts) {
			log.warn(
				{ status },
				verdict === 'stop'
					? 'delivery stopped: the receiver rejected it'
					: 'delivery failed: no attempts left',
			);
			this.finish(delivery.id, 'failed', status, lastError);
			return;
		}
		const delay = retryAfter ?? backoffDelayMs(attemptNumber, this.options.retryBaseMs);
		log.info({ status, retry_in_ms: delay }, 'delivery will be retried');
		this.record(delivery.id, {
			state: 'pending',
			last_status: status,
			last_error: lastError,
			next_attempt_at: isoIn(delay),
		});
	}

	/**
	 * Whether the webhook settings changed within the set-up grace: n8n's Contact Form Trigger gives the
	 * site its URL and secret during activation, and n8n stores the secret a moment later, so a delivery
	 * in between meets a 401 (docs/contact-form-trigger.md).
	 */
	private settingUp(delivery: DueDelivery): boolean {
		const grace = this.options.setupGraceMs ?? 0;
		if (grace <= 0 || delivery.webhook_set_at === null) return false;
		return Date.now() - Date.parse(delivery.webhook_set_at) < grace;
	}

	private finish(
		id: string,
		state: 'delivered' | 'failed',
		status: number | null,
		error: string | null,
	): void {
		this.record(id, { state, last_status: status, last_error: error, next_attempt_at: null });
	}

	private record(id: string, outcome: AttemptOutcome): void {
		if (this.shutdown.signal.aborted) return;
		try {
			this.options.repository.recordAttempt(id, outcome);
		} catch (err) {
			this.options.logger.error({ err, delivery_id: id }, 'could not record a delivery attempt');
		}
	}
}

/** last_error of an attempt that got no answer, whatever the cause (see attempt()). */
export const UNREACHABLE = 'The webhook could not be reached or did not answer in time.';
