import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { openStore } from './db';
import { DeliveryWorker } from './delivery/worker';
import { AssetStore } from './storage/asset-store';
import type { SiteContext } from './context';
import type { ServerConfig } from './types';
import errorsPlugin from './plugins/errors';
import authPlugin from './plugins/auth';
import requestShapePlugin from './plugins/request-shape';
import idempotencyPlugin from './plugins/idempotency';
import faultsPlugin from './plugins/faults';
import openapiPlugin from './plugins/openapi';
import healthRoutes from './routes/health';
import tenantRoutes from './routes/tenants';
import tokenRoutes from './routes/tokens';
import pageRoutes from './routes/pages';
import contentRoutes from './routes/content';
import assetRoutes from './routes/assets';
import settingsRoutes from './routes/settings';
import sitemapRoutes from './routes/sitemap';
import notificationRoutes from './routes/notifications';
import variableRoutes from './routes/variables';
import contactFormRoutes from './routes/contact-form';

const MB = 1024 * 1024;

function loggerOptions(config: ServerConfig): FastifyServerOptions['logger'] {
	if (config.logger === false) return false;
	return {
		level: config.logger === true ? 'info' : config.logger,
		// Belt and braces: the default serializers log no headers and no bodies, and these stay redacted if that changes.
		redact: { paths: ['req.headers.authorization', 'req.headers["idempotency-key"]', 'headers.authorization'], censor: '[redacted]' },
	};
}

/** Where the database and the asset files go; with `memory`, nothing touches dataDir. */
function openStorage(config: ServerConfig): { dbFile: string; assetsRoot: string; cleanup: () => void } {
	if (config.memory) {
		const temp = mkdtempSync(path.join(os.tmpdir(), 'site-reference-server-'));
		return { dbFile: ':memory:', assetsRoot: temp, cleanup: () => rmSync(temp, { recursive: true, force: true }) };
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
	const store = openStore(storage.dbFile);

	const app = Fastify({
		logger: loggerOptions(config),
		bodyLimit: Math.max(1, Math.floor(config.maxBodyMb * MB)),
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
				keywords: ['x-extension', 'x-contract-decided', 'x-problem'],
			},
		},
	});

	const worker = new DeliveryWorker({
		repository: store.contactForm,
		logger: app.log,
		retryBaseMs: config.deliveryRetryBaseMs,
		maxAttempts: config.deliveryMaxAttempts,
		timeoutMs: config.deliveryTimeoutMs,
	});
	const context: SiteContext = {
		config,
		store,
		assets: new AssetStore(storage.assetsRoot),
		worker,
		publicUrl: config.publicUrl ?? `http://${config.host}:${config.port}`,
	};
	app.decorate('site', context);

	app.register(errorsPlugin);
	app.register(openapiPlugin);
	app.register(multipart, {
		// Stream mode; a file over the limit is truncated and the route answers 413 after draining the request.
		throwFileSizeLimit: false,
		limits: { fileSize: Math.max(1, Math.floor(config.maxUploadMb * MB)), files: 5, fields: 20, fieldSize: 64 * 1024, parts: 30 },
	});
	app.register(authPlugin);
	app.register(requestShapePlugin);
	app.register(idempotencyPlugin);
	app.register(faultsPlugin);

	app.register(healthRoutes);
	app.register(tenantRoutes);
	app.register(tokenRoutes);
	app.register(pageRoutes);
	app.register(contentRoutes);
	app.register(assetRoutes);
	app.register(settingsRoutes);
	app.register(sitemapRoutes);
	app.register(notificationRoutes);
	app.register(variableRoutes);
	app.register(contactFormRoutes);

	app.addHook('onReady', async () => worker.start());
	app.addHook('onClose', async () => {
		await worker.stop();
		store.db.close();
		storage.cleanup();
	});
	return app;
}
