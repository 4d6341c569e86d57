/** The requests of the server rows, as autocannon request specs: the same for every server they load. */
import type autocannon from 'autocannon';
import { randomUUID } from 'crypto';

export type PageMethod = 'POST /api/page' | 'GET /api/pages';

// Shared by every spec made here, so that no two requests of a run create the same url (a 409).
let counter = 0;

/**
 * A new page per request (a repeated url is a 409) and a fresh Idempotency-Key, like the node sends;
 * without the key when `idempotencyKey` is false (what the server's stored answers cost, a figure).
 */
function createPageRequests(token: string, idempotencyKey: boolean): autocannon.RequestSpec[] {
	return [
		{
			method: 'POST',
			path: '/api/page',
			setupRequest: (request) => {
				const i = counter++;
				return {
					...request,
					headers: {
						authorization: `Bearer ${token}`,
						accept: 'application/json',
						'content-type': 'application/json',
						...(idempotencyKey ? { 'idempotency-key': randomUUID() } : {}),
					},
					body: JSON.stringify({ name: `Cannon ${i}`, url: `/cannon/${i}`, locale: 'en' }),
				};
			},
		},
	];
}

/** The first page of the listing (20 pages, the default page size). */
function listPagesRequests(token: string): autocannon.RequestSpec[] {
	return [
		{
			method: 'GET',
			path: '/api/pages',
			headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
		},
	];
}

export function pageRequests(
	method: PageMethod,
	token: string,
	{ idempotencyKey = true } = {},
): Partial<autocannon.Options> {
	return {
		requests:
			method === 'POST /api/page'
				? createPageRequests(token, idempotencyKey)
				: listPagesRequests(token),
	};
}
