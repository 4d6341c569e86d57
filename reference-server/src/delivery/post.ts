import http from 'node:http';
import https from 'node:https';
import { portOf, type TargetPolicy, WebhookRefusedError } from './target-policy';

/** Header on every webhook POST; a contact-form submission carrying it is refused (a delivery loop). */
export const DELIVERY_MARK_HEADER = 'x-site-delivery-id';

/** Bytes of a webhook's reply read at most; the rest is discarded (the connection is closed). */
const REPLY_READ_CAP = 64 * 1024;

export interface SubmissionPost {
	/** The tenant's configured headers; the server's own (content type, user agent, mark) win. */
	headers: Record<string, string>;
	body: string;
	/** The value of DELIVERY_MARK_HEADER: the delivery id, or what else the POST is. */
	mark: string;
	signal: AbortSignal;
}

/**
 * One webhook POST of a contact-form submission (a delivery or a test copy), to a URL the target
 * policy admits: its literal address is checked here, every address its name resolves to when the
 * connection is made (a WebhookRefusedError either way). A reply is read up to REPLY_READ_CAP and
 * then the socket is destroyed, so a receiver streaming gigabytes costs at most that much memory. A
 * 3xx is not followed (a redirected POST may turn into a GET, or lead somewhere the target policy
 * refuses). User and password in the URL are sent as Basic authentication.
 */
export function postSubmission(
	targets: TargetPolicy,
	url: URL,
	post: SubmissionPost,
): Promise<{ status: number; retryAfter: string | undefined }> {
	const refused = targets.refusalForUrl(url);
	if (refused !== undefined) return Promise.reject(new WebhookRefusedError(refused));
	const transport = url.protocol === 'https:' ? https : http;
	return new Promise((resolve, reject) => {
		const request = transport.request(url, {
			method: 'POST',
			headers: {
				...post.headers,
				'content-type': 'application/json',
				'content-length': String(Buffer.byteLength(post.body)),
				'user-agent': 'site-reference-server',
				[DELIVERY_MARK_HEADER]: post.mark,
			},
			signal: post.signal,
			lookup: targets.lookupFor(portOf(url)),
		});
		request.once('error', reject);
		request.once('response', (response) => {
			const finish = () =>
				resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] });
			let bytesRead = 0;
			response.on('data', (chunk: Buffer) => {
				bytesRead += chunk.length;
				if (bytesRead < REPLY_READ_CAP) return;
				finish();
				// The rest is never read: the socket goes (it cannot be reused with an unread reply in it).
				response.destroy();
			});
			response.once('end', finish);
			// A reply cut off after its status is still an answer with that status.
			response.once('error', finish);
			response.once('aborted', finish);
		});
		request.end(post.body);
	});
}
