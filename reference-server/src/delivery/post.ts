import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/** Bytes of a webhook's reply read at most; the rest is discarded (the connection is closed). */
export const REPLY_READ_CAP = 64 * 1024;

export interface WebhookReply {
	status: number;
	retryAfter: string | undefined;
	/** Reply bytes read (at most REPLY_READ_CAP). */
	bytesRead: number;
}

export interface PostOptions {
	headers: Record<string, string>;
	body: string;
	signal: AbortSignal;
	/** Resolves the host name and refuses addresses (target-policy.ts); not called for an IP literal. */
	lookup?: LookupFunction;
}

/**
 * One webhook POST. A reply is read up to REPLY_READ_CAP and then the socket is destroyed, so a
 * receiver streaming gigabytes costs at most that much memory. A 3xx is not followed (a redirected
 * POST may turn into a GET, or lead somewhere the target policy refuses). User and password in the
 * URL are sent as Basic authentication.
 */
export function postWebhook(url: URL, options: PostOptions): Promise<WebhookReply> {
	const transport = url.protocol === 'https:' ? https : http;
	return new Promise<WebhookReply>((resolve, reject) => {
		const request = transport.request(url, {
			method: 'POST',
			headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
			signal: options.signal,
			...(options.lookup ? { lookup: options.lookup } : {}),
		});
		request.once('error', reject);
		request.once('response', (response) => {
			let bytesRead = 0;
			const finish = () => {
				resolve({
					status: response.statusCode ?? 0,
					retryAfter: header(response.headers['retry-after']),
					bytesRead,
				});
			};
			response.on('data', (chunk: Buffer) => {
				bytesRead += chunk.length;
				if (bytesRead < REPLY_READ_CAP) return;
				bytesRead = Math.min(bytesRead, REPLY_READ_CAP);
				finish();
				// The rest is never read: the socket goes (it cannot be reused with an unread reply in it).
				response.destroy();
			});
			response.once('end', finish);
			// A reply cut off after its status is still an answer with that status.
			response.once('error', finish);
			response.once('aborted', finish);
		});
		request.end(options.body);
	});
}

function header(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[0] : value;
}
