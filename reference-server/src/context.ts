import type { onRequestHookHandler } from 'fastify';
import type { Store } from './db';
import type { TargetPolicy } from './delivery/target-policy';
import type { TestCopySender } from './delivery/test-copies';
import type { DeliveryWorker } from './delivery/worker';
import type { AssetStore } from './storage/asset-store';
import type { ServerConfig } from './types';

/** What every route plugin needs, decorated on the app as `app.site`. */
export interface SiteContext {
	config: ServerConfig;
	store: Store;
	assets: AssetStore;
	worker: DeliveryWorker;
	/** Copies of new submissions for test webhooks (delivery/test-copies.ts). */
	testCopies: TestCopySender;
	/** Base of absolute asset URLs; known only once the server listens (see server.ts). */
	publicUrl: string;
	/** The port listened on; known only once the server listens (0 before). */
	listenPort: number;
	/** Where webhooks may point (delivery/target-policy.ts). */
	targets: TargetPolicy;
}

/** A tenant token's caller: its tenant (pk: the internal key, stable across renames) and token. */
export interface TenantCaller {
	kind: 'tenant';
	pk: number;
	id: string;
	/** The SHA-256 of the token the request carried (what it registers is tied to it). */
	tokenHash: string;
}

/** Who is calling, set by the auth hooks; the idempotency scope derives from it. */
export type Caller = { kind: 'admin' } | TenantCaller;

declare module 'fastify' {
	interface FastifyInstance {
		site: SiteContext;
		requireAdmin: onRequestHookHandler;
		requireTenant: onRequestHookHandler;
	}
	interface FastifyRequest {
		caller: Caller | null;
	}
	interface FastifyContextConfig {
		/** The route reads a multipart body itself; every other route is JSON-only. */
		multipart?: boolean;
		/**
		 * false: the Idempotency-Key header is ignored. For answers that carry a secret shown once (a
		 * new token), and for a POST that only reads (the sitemap: a repeat reads again).
		 */
		idempotency?: boolean;
	}
}

/** The caller of a handler behind requireTenant. */
export function tenantOf(request: { caller: Caller | null }): TenantCaller {
	if (request.caller?.kind !== 'tenant') throw new Error('route is missing the requireTenant hook');
	return request.caller;
}
