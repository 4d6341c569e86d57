/**
 * What a reference server did under injected faults, seen from its HTTP server: every /api request,
 * the ones answered 503 (injected before any work), the ones whose connection closed without an answer
 * (injected drops after the work was committed), and idempotent replays (a retry answered from the
 * stored first answer instead of doing the work again).
 */
import type { Server } from 'http';

import { headerValue, isRecord } from '../../nodes/shared/json';

interface FaultFigures {
	requests: number;
	unavailable: number;
	dropped: number;
	replayed: number;
}

export class FaultCounter {
	figures: FaultFigures = { requests: 0, unavailable: 0, dropped: 0, replayed: 0 };

	/** Starts counting the requests of this HTTP server (call again after a restart). */
	attach(server: Server): this {
		server.on('request', (request, response) => {
			if (!request.url?.startsWith('/api/')) return;
			this.figures.requests++;
			let finished = false;
			let replayed = false;
			// Fastify hands its headers to writeHead in one object, so they are read there.
			const writeHead = response.writeHead;
			response.writeHead = function (this: typeof response, ...args: unknown[]) {
				const headers = args.find(isRecord);
				if (headers && String(headerValue(headers, 'idempotent-replayed')) === 'true')
					replayed = true;
				return (writeHead as (...a: unknown[]) => typeof response).apply(this, args);
			} as typeof response.writeHead;
			response.on('finish', () => {
				finished = true;
				if (response.statusCode === 503) this.figures.unavailable++;
				if (replayed || response.getHeader('idempotent-replayed') === 'true')
					this.figures.replayed++;
			});
			// 'finish' means the answer was handed to the socket; a dropped connection closes without it.
			response.on('close', () => {
				if (!finished) this.figures.dropped++;
			});
		});
		return this;
	}

	/** The figures since the last reset, and a fresh start. */
	take(): FaultFigures {
		const figures = this.figures;
		this.figures = { requests: 0, unavailable: 0, dropped: 0, replayed: 0 };
		return figures;
	}
}

/** One summary line for the test output (and the README's Reliability section). */
export function report(label: string, figures: Record<string, number | string>): void {
	const text = Object.entries(figures)
		.map(([key, value]) => `${key}=${value}`)
		.join(' ');
	console.log(`[reliability] ${label}: ${text}`);
}
