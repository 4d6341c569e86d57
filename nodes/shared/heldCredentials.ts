/**
 * Credentials a trigger's webhook reads, held for a few seconds per process. Outside an execution
 * n8n reads a credential with a fresh expression isolate, a database read and a decryption: for the
 * Contact Form Trigger, whose claim is the only request of a delivery, that read was the larger part
 * of what the trigger costs n8n over its own Webhook node (docs/performance.md,
 * `trigger-vs-webhook-node`). Execution contexts do not use this: they read once per node run.
 *
 * Held per workflow, node and credential, so nothing is shared between triggers. An edit of the
 * credential reaches the trigger within HOLD_MS; a token the site refuses (401/403) is dropped at
 * once, so the site's next delivery reads the credential again.
 */
import type { ICredentialsDecrypted } from 'n8n-workflow';

export const HOLD_MS = 10_000;
/** Triggers held per process; the oldest goes first. */
const MAX_HELD = 100;

interface Held {
	read: Promise<ICredentialsDecrypted>;
	until: number;
}

const held = new Map<string, Held>();

/** The held read for the key, or a new one from `read` (a failed read is not held). */
export async function heldCredentials(
	key: string,
	read: () => Promise<ICredentialsDecrypted>,
): Promise<ICredentialsDecrypted> {
	const now = Date.now();
	const entry = held.get(key);
	if (entry && entry.until > now) return await entry.read;
	held.delete(key);
	if (held.size >= MAX_HELD) held.delete(held.keys().next().value as string);
	const fresh: Held = { read: read(), until: now + HOLD_MS };
	held.set(key, fresh);
	fresh.read.catch(() => forgetHeldCredentials(key, fresh));
	return await fresh.read;
}

/** Drops the key's held read (e.g. its token was refused); with `entry`, only if still that one. */
export function forgetHeldCredentials(key: string, entry?: Held): void {
	if (entry === undefined || held.get(key) === entry) held.delete(key);
}
