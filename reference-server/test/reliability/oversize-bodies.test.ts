/**
 * Over-limit JSON bodies: the 413 arrives as an answer every time, never as a
 * reset while the client is still sending. The client runs in a child process (Node's fetch, as a
 * caller would use it): with client and server on one event loop the race never shows.
 */
import { execFile } from 'node:child_process';

import { type Harness, issueToken, removeDataDirs, start, stopAll } from '../helpers';

let h: Harness;
beforeAll(async () => {
	h = await start({ maxBodyMb: 1 });
});
afterAll(async () => {
	await stopAll();
	removeDataDirs();
});

/** Sends the body `times` times, one after the other, from a child process; tallies statuses and errors. */
function sendFromChild(
	url: string,
	token: string,
	bodyMb: number,
	times: number,
): Promise<Record<string, number>> {
	const script = `
		const [url, token, mb, times] = process.argv.slice(1);
		const body = JSON.stringify({ templates: [], pad: 'y'.repeat(Number(mb) * 1024 * 1024) });
		(async () => {
			const tally = {};
			for (let i = 0; i < Number(times); i += 1) {
				let key;
				try {
					const res = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token }, body });
					const json = await res.json().catch(() => ({}));
					key = res.status + ' ' + json.error;
				} catch (error) {
					key = error.message + ' ' + (error.cause && error.cause.code);
				}
				tally[key] = (tally[key] || 0) + 1;
			}
			process.stdout.write(JSON.stringify(tally));
		})();`;
	return new Promise((resolve, reject) => {
		execFile(
			process.execPath,
			['-e', script, url, token, String(bodyMb), String(times)],
			{ timeout: 60_000 },
			(error, stdout) => {
				if (error) reject(error);
				else resolve(JSON.parse(stdout) as Record<string, number>);
			},
		);
	});
}

it('20 JSON bodies over the limit sent with Node fetch: 20 clean 413 answers', async () => {
	const id = `big-${Date.now()}`;
	expect((await h.admin.post('/api/tenant', { id })).status).toBe(200);
	const token = await issueToken(h, id);
	const tally = await sendFromChild(`${h.url}/api/content?url=/x`, token, 8, 20);
	expect(tally).toEqual({ '413 payload_too_large': 20 });
	// The server still answers.
	expect((await h.anon.get('/health')).status).toBe(200);
}, 90_000);
