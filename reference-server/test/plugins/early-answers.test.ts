/**
 * Answers decided before the request body arrived (an upload with a wrong token) go out once the body
 * is read, so Node 20's HTTP client, streaming a body into a kept-alive socket, neither waits forever
 * for `drain` after an early 401 nor leaves the next request on that socket without an answer.
 */
import http from 'node:http';
import { Readable } from 'node:stream';

import { type Harness, createTenant, useServer } from '../helpers';

let h: Harness;
useServer((started) => {
	h = started;
});

const BODY_BYTES = 8 * 1024 * 1024;

/** Streams an 8 MB multipart-declared body; resolves with the status and whether the body was all written. */
function streamUpload(
	agent: http.Agent,
	token: string,
): Promise<{ status: number; written: boolean }> {
	return new Promise((resolve, reject) => {
		let status = 0;
		let written = false;
		let answered = false;
		const timer = setTimeout(
			() => reject(new Error(`stalled: status ${status}, body written ${written}`)),
			10_000,
		);
		const settle = () => {
			if (answered && written) {
				clearTimeout(timer);
				resolve({ status, written });
			}
		};
		let sent = 0;
		const body = new Readable({
			read() {
				if (sent >= BODY_BYTES) return void this.push(null);
				const size = Math.min(64 * 1024, BODY_BYTES - sent);
				sent += size;
				this.push(Buffer.alloc(size, 97));
			},
		});
		const request = http.request(
			`${h.url}/api/asset`,
			{
				method: 'POST',
				agent,
				headers: {
					'content-type': 'multipart/form-data; boundary=early-answer',
					'content-length': BODY_BYTES,
					authorization: `Bearer ${token}`,
				},
			},
			(response) => {
				status = response.statusCode ?? 0;
				response.resume();
				response.on('end', () => {
					answered = true;
					settle();
				});
			},
		);
		request.on('error', (error) => {
			clearTimeout(timer);
			reject(error);
		});
		request.on('finish', () => {
			written = true;
			settle();
		});
		body.pipe(request);
	});
}

test('10 uploads with a wrong token over one kept-alive socket: each gets its 401, every body is written, and the socket serves the next request', async () => {
	const tenant = await createTenant(h);
	const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
	try {
		for (let attempt = 0; attempt < 10; attempt++) {
			expect(await streamUpload(agent, 'stt_not_a_real_token_0123456789abcdef')).toEqual({
				status: 401,
				written: true,
			});
		}
		const listed = await new Promise<number>((resolve, reject) => {
			http
				.get(
					`${h.url}/api/pages`,
					{ agent, headers: { authorization: `Bearer ${tenant.token}` } },
					(response) => {
						response.resume();
						response.on('end', () => resolve(response.statusCode ?? 0));
					},
				)
				.on('error', reject);
		});
		expect(listed).toBe(200);
	} finally {
		agent.destroy();
	}
});
