import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { openStore } from './db';
import { PAGE_URL_CHANGE_WORDS, type PageUrlChange } from './db/page-url-migration';
import { parseCidrList, TargetPolicy } from './delivery/target-policy';
import { TestCopySender } from './delivery/test-copies';
import { DeliveryWorker } from './delivery/worker';
import { AssetStore } from './storage/asset-store';
import type { SiteContext } from './context';
import type { ServerConfig } from './types';
import { ApiError } from './errors/api-error';
import { loggerOptions } from './logging';
import errorsPlugin, { sendError } from './plugins/errors';
import authPlugin from './plugins/auth';
import requestShapePlugin from './plugins/request-shape';
import jsonBodyPlugin from './plugins/json-body';
import idempotencyPlugin from './plugins/idempotency';
import faultsPlugin from './plugins/faults';
import openapiPlugin from './plugins/openapi';
import extensionsPlugin from './plugins/extensions';
import retentionPlugin from './plugins/retention';
import healthRoutes from './routes/health';
import tenantRoutes from './routes/tenants';
import pageRoutes from './routes/pages';
import assetRoutes from './routes/assets';
import settingsRoutes from './routes/settings';
import notificationRoutes from './routes/notifications';
import variableRoutes from './routes/variables';
import contactFormRoutes from './routes/contact-form';
import contactFormClaimRoutes from './routes/contact-form-claims';
import contactFormTestWebhookRoutes from './routes/contact-form-test-webhooks';
import earlyAnswersPlugin from './plugins/early-answers';

const MB = 1024 * 1024;

/** Errors of Node's HTTP parser, by code; any other is "not valid HTTP". */
const CLIENT_ERRORS: Record<string, ApiError> = {
	ERR_HTTP_REQUEST_TIMEOUT: new ApiError(
		408,
		'request_timeout',
		'The request did not arrive in time; the connection is closed.',
	),
	HPE_HEADER_OVERFLOW: new ApiError(431, 'headers_too_large', 'The request headers are too large.'),
};

/**
 * Errors Node's HTTP parser raises before a request reaches Fastify's routes (a client too slow with
 * its headers or body, headers too large, bytes that are not HTTP): answered with the contract's
 * error body, then the connection is closed.
 */
function clientErrorHandler(
	this: FastifyInstance,
	error: Error & { code?: string },
	socket: Socket,
): void {
	if (error.code === 'ECONNRESET' || socket.destroyed) return;
	const { status, code, message } =
		CLIENT_ERRORS[error.code ?? ''] ??
		new ApiError(400, 'bad_request', 'The request is not valid HTTP.');
	this.log.debug({ code: error.code, status }, 'client error');
	if (socket.writable) {
		const text = JSON.stringify({ error: code, message });
		socket.write(
			`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
		);
	}
	socket.destroy();
}

/** Where the database and the asset files go; with `memory`, nothing touches dataDir. */
function openStorage(config: ServerConfig): {
	dbFile: string;
	assetsRoot: string;
	cleanup: () => void;
} {
	if (config.memory) {
		const temp = mkdtempSync(path.join(os.tmpdir(), 'site-reference-server-'));
		return {
			dbFile: ':memory:',
			assetsRoot: temp,
			cleanup: () => rmSync(temp, { recursive: true, force: true }),
		};
	}
	const assetsRoot = path.join(config.dataDir, 'assets');
	mkdirSync(assetsRoot, { recursive: true });
	return { dbFile: path.join(config.dataDir, 'site.db'), assetsRoot, cleanup: () => undefined };
}

/**
 * The whole service as a Fastify instance, not listening yet (startServer listens). The delivery
 * worker starts when the app is ready; closing the app stops the worker and closes the database.
 */
export function buildApp(config: ServerConfig): FastifyInstance {
	const storage = openStorage(config);
	// What migrations changed is logged once the logger exists (below).
	const migrated: PageUrlChange[] = [];
	const store = openStore(storage.dbFile, (change) => migrated.push(change));

	const app = Fastify({
		logger: loggerOptions(config),
		// Slow clients: Node enforces the header and whole-request deadlines (checked every
		// connectionsCheckingInterval); a socket idle mid-request or between kept-alive requests is
		// closed after idleTimeoutMs. Fastify would otherwise turn Node's request timeout off.
		http: {
			headersTimeout: config.headersTimeoutMs,
			requestTimeout: config.requestTimeoutMs,
			connectionsCheckingInterval: Math.max(
				25,
				Math.min(1000, Math.floor(config.headersTimeoutMs / 4)),
			),
			// Node would answer a missing Host with a bare 400; the hook below answers it with the error body.
			requireHostHeader: false,
		},
		requestTimeout: config.requestTimeoutMs,
		connectionTimeout: config.idleTimeoutMs,
		keepAliveTimeout: config.idleTimeoutMs,
		clientErrorHandler,
		// Errors Fastify raises before routing (a URL with broken percent-encoding) bypass the error
		// handler; they get the contract's error body too.
		frameworkErrors(error, _request, reply) {
			sendError(
				reply as unknown as FastifyReply,
				error.code === 'FST_ERR_BAD_URL'
					? new ApiError(400, 'bad_request', 'The request URL is not valid.')
					: new ApiError(400, 'validation_failed', 'The request is not valid.'),
			);
		},
		bodyLimit: Math.max(1, Math.floor(config.maxBodyMb * MB)),
		// Off by default: X-Forwarded-For is believed only from the proxies --trust-proxy names.
		trustProxy:
			config.trustProxy === undefined ? false : parseCidrList(config.trustProxy).toCidrs(),
		// Asset URLs end in a file name of up to 120 characters (storage/asset-upload.ts); Fastify's default
		// limit of 100 would answer such a URL 414.
		routerOptions: { maxParamLength: 256 },
		ajv: {
			customOptions: {
				// Every bad field is reported; types are never coerced in bodies (query strings: request-shape.ts);
				// unknown fields are an error where a schema says additionalProperties: false, not silently dropped.
				allErrors: true,
				coerceTypes: false,
				removeAdditional: false,
				useDefaults: true,
				// Nullable fields and 0/1 flags are written as type arrays.
				allowUnionTypes: true,
				// Each error carries the subschema that failed: its x-problem words the answer (plugins/errors.ts).
				verbose: true,
				keywords: ['x-extension', 'x-contract-decided', 'x-problem'],
			},
		},
	});
	for (const change of migrated) app.log.warn(change, PAGE_URL_CHANGE_WORDS[change.reason]);

	const targets = new TargetPolicy({
		allow: config.webhookAllow === undefined ? undefined : parseCidrList(config.webhookAllow),
		deny: config.webhookDeny === undefined ? undefined : parseCidrList(config.webhookDeny),
		self: () => ({
			port: context.listenPort,
			host: config.host,
			publicOrigin: new URL(context.publicUrl).origin,
		}),
	});
	const worker = new DeliveryWorker({
		repository: store.contactForm,
		targets,
		logger: app.log,
		retryBaseMs: config.deliveryRetryBaseMs,
		maxAttempts: config.deliveryMaxAttempts,
		timeoutMs: config.deliveryTimeoutMs,
		setupGraceMs: config.deliverySetupGraceMs,
	});
	const context: SiteContext = {
		config,
		store,
		assets: new AssetStore(storage.assetsRoot),
		worker,
		testCopies: new TestCopySender({
			targets,
			logger: app.log,
			timeoutMs: config.deliveryTimeoutMs,
			maxInFlight: config.maxTestCopiesInFlight,
		}),
		publicUrl: config.publicUrl ?? `http://${config.host}:${config.port}`,
		listenPort: config.port,
		targets,
	};
	app.decorate('site', context);

	app.addHook('onRequest', (request, _reply, done) => {
		if (request.raw.httpVersion === '1.1' && !request.headers.host)
			done(new ApiError(400, 'bad_request', 'An HTTP/1.1 request must carry a Host header.'));
		else done();
	});
	// Plugin order matters: hooks of one kind run in the order they were added, and @fastify/swagger
	// sees only the routes registered after it.
	// 1. Early answers first: its onSend holds back any answer decided before the body arrived.
	app.register(earlyAnswersPlugin);
	// 2. The error handler, which every later plugin's ApiError relies on (their `dependencies`).
	app.register(errorsPlugin);
	// 3. With --no-extensions, the route schemas lose their extension fields (before the OpenAPI
	//    document and the routes see them); then the OpenAPI document, before any route, so it
	//    collects them all.
	app.register(extensionsPlugin);
	app.register(openapiPlugin);
	// 4. Body parsers and limits from the ecosystem: multipart (the upload) and the rate limiter.
	app.register(multipart, {
		// Stream mode; a file over the limit is truncated and the route answers 413 after draining the request.
		throwFileSizeLimit: false,
		limits: {
			fileSize: Math.max(1, Math.floor(config.maxUploadMb * MB)),
			files: 5,
			fields: 20,
			fieldSize: 64 * 1024,
			parts: 30,
		},
	});
	// Only the routes that ask for it (the public form, the claims) are limited: their hook runs
	// each budget's limiter and answers past one (routes/public-rate-limits.ts).
	app.register(rateLimit, { global: false });
	// 5. Our request hooks: tokens (requireAdmin / requireTenant), query coercion and the JSON-only
	//    rule, then the JSON body checks and parser.
	app.register(authPlugin);
	app.register(requestShapePlugin);
	app.register(jsonBodyPlugin);
	// 6. Answer hooks, in this order on every route: the answer is stored for replay (idempotency), then
	//    possibly dropped on purpose (faults), as a real lost answer would be.
	app.register(idempotencyPlugin);
	app.register(faultsPlugin);

	// 7. The routes, one plugin per resource; their schemas are in schemas/<resource>.ts. Claims and
	//    test webhooks are extensions through and through; the other plugins leave out their own
	//    extension routes with --no-extensions (plugins/extensions.ts).
	app.register(healthRoutes);
	app.register(tenantRoutes);
	app.register(pageRoutes);
	app.register(assetRoutes);
	app.register(settingsRoutes);
	app.register(notificationRoutes);
	app.register(variableRoutes);
	app.register(contactFormRoutes);
	if (config.extensions) {
		app.register(contactFormClaimRoutes);
		app.register(contactFormTestWebhookRoutes);
	}

	// 8. Housekeeping: old contact-form submissions and deliveries go (--retention-days).
	app.register(retentionPlugin);

	app.addHook('onReady', async () => worker.start());
	app.addHook('onClose', async () => {
		await worker.stop();
		store.close();
		storage.cleanup();
	});
	return app;
}
