import { randomUUID } from 'node:crypto';
import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** A delivery as GET /api/contact-form/deliveries shows it. */
export interface Delivery {
	id: string;
	submission_id: string;
	state: DeliveryState;
	attempts: number;
	last_status: number | null;
	last_error: string | null;
	next_attempt_at: string | null;
	delivered_at: string | null;
	created_at: string;
	updated_at: string;
}

/** Everything one delivery attempt needs, read fresh before each attempt. */
export interface DueDelivery {
	id: string;
	attempts: number;
	submission_id: string;
	form: string;
	fields: string;
	submitted_at: string;
	tenant_id: string;
	webhook_url: string | null;
	webhook_headers: string | null;
	/** When the tenant's settings (webhook URL and headers among them) last changed. */
	webhook_set_at: string | null;
}

export type AttemptOutcome = Pick<
	Delivery,
	'state' | 'last_status' | 'last_error' | 'next_attempt_at'
>;

export type ContactFormRepository = ReturnType<typeof createContactFormRepository>;

export function createContactFormRepository(db: SqliteDatabase) {
	const webhookUrl = db.prepare<[number], { url: string | null }>(
		'SELECT contact_form_webhook_url AS url FROM settings WHERE tenant_pk = ?',
	);
	const insertSubmission = db.prepare(
		'INSERT INTO submissions (id, tenant_pk, form, fields, submitted_at) VALUES (?, ?, ?, ?, ?)',
	);
	const insertDelivery = db.prepare(
		`INSERT INTO deliveries (id, submission_id, tenant_pk, state, attempts, next_attempt_at, created_at, updated_at)
		 VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)`,
	);
	const due = db.prepare<[string, number], DueDelivery>(
		`SELECT d.id, d.attempts, s.id AS submission_id, s.form, s.fields, s.submitted_at, t.id AS tenant_id,
		        st.contact_form_webhook_url AS webhook_url, st.contact_form_webhook_headers AS webhook_headers,
		        st.updated_at AS webhook_set_at
		   FROM deliveries d
		   JOIN submissions s ON s.id = d.submission_id
		   JOIN tenants t ON t.pk = d.tenant_pk
		   LEFT JOIN settings st ON st.tenant_pk = d.tenant_pk
		  WHERE d.state = 'pending' AND d.next_attempt_at <= ?
		  ORDER BY d.next_attempt_at, d.seq
		  LIMIT ?`,
	);
	// Deliveries go with their submission (ON DELETE CASCADE). One still pending keeps its submission.
	const purgeSubmissions = db.prepare(
		`DELETE FROM submissions
		  WHERE submitted_at < ?
		    AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.submission_id = submissions.id AND d.state = 'pending')`,
	);
	// A listing filtered by state, or (state null) of every delivery.
	const matching =
		'FROM deliveries WHERE tenant_pk = @tenantPk AND (@state IS NULL OR state = @state)';
	const countDeliveries = db.prepare(`SELECT COUNT(*) ${matching}`).pluck();
	const listDeliveries = db.prepare(
		`SELECT id, submission_id, state, attempts, last_status, last_error, next_attempt_at, delivered_at, created_at, updated_at
		   ${matching} ORDER BY seq DESC LIMIT @limit OFFSET @offset`,
	);
	const recordAttempt = db.prepare(
		`UPDATE deliveries
		    SET attempts = attempts + 1, state = @state, last_status = @last_status, last_error = @last_error,
		        next_attempt_at = @next_attempt_at, delivered_at = @delivered_at, updated_at = @now
		  WHERE id = @id AND state = 'pending'`,
	);

	return {
		/**
		 * Stores the submission and its outbox row in one transaction when the tenant has a webhook URL at
		 * this moment. Without one nothing is stored: no call lists submissions and none is delivered
		 * later, so a stored one could only pile up. The id is still returned (the public
		 * form's answer does not tell visitors how the site is configured).
		 */
		submit(
			tenantPk: number,
			form: string,
			fields: Record<string, unknown>,
		): { submissionId: string; submittedAt: string; deliveryId: string | null } {
			return db.transaction(() => {
				const now = nowIso();
				const submissionId = randomUUID();
				if (!webhookUrl.get(tenantPk)?.url)
					return { submissionId, submittedAt: now, deliveryId: null };
				insertSubmission.run(submissionId, tenantPk, form, JSON.stringify(fields), now);
				const deliveryId = randomUUID();
				insertDelivery.run(deliveryId, submissionId, tenantPk, now, now, now);
				return { submissionId, submittedAt: now, deliveryId };
			})();
		},
		list(
			tenantPk: number,
			state: DeliveryState | undefined,
			limit: number,
			offset: number,
		): { deliveries: Delivery[]; total: number } {
			const filter = { tenantPk, state: state ?? null };
			return {
				deliveries: listDeliveries.all({ ...filter, limit, offset }) as Delivery[],
				total: countDeliveries.get(filter) as number,
			};
		},
		/**
		 * Deletes submissions older than `before` (an ISO time) with their deliveries, except those whose
		 * delivery is still pending; returns how many submissions went.
		 */
		purgeOlderThan: (before: string): number => purgeSubmissions.run(before).changes,
		/** Pending deliveries whose time has come, oldest first. */
		due: (now: string, limit: number): DueDelivery[] => due.all(now, limit),
		/** Records one finished attempt; a row that is gone (tenant deleted) or no longer pending is left alone. */
		recordAttempt(id: string, outcome: AttemptOutcome): void {
			const now = nowIso();
			recordAttempt.run({
				...outcome,
				id,
				now,
				delivered_at: outcome.state === 'delivered' ? now : null,
			});
		},
	};
}
