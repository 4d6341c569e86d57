import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** How often the purge runs while the server is up (it also runs once when the server is ready). */
export const RETENTION_PURGE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Contact-form submissions and their finished deliveries are kept `--retention-days` (default 30),
 * then deleted by a purge that runs on its own: when the server is ready and hourly after. A
 * submission whose delivery is still pending stays until it settles. 0 days keeps them all. The same
 * purge drops expired claims (db/contact-form-claims.ts: their retention is their own).
 */
export default fp(
	async function retentionPlugin(app: FastifyInstance) {
		const { config, store } = app.site;
		const purge = () => {
			try {
				if (config.retentionDays > 0) {
					const before = new Date(Date.now() - config.retentionDays * DAY_MS).toISOString();
					const removed = store.contactForm.purgeOlderThan(before);
					if (removed > 0)
						app.log.info({ removed }, 'retention: old contact-form submissions purged');
				}
				const claims = store.contactFormClaims.purgeExpired();
				if (claims > 0) app.log.info({ claims }, 'retention: expired claims purged');
			} catch (err) {
				app.log.error({ err }, 'retention: the purge failed; it runs again within the hour');
			}
		};
		let timer: NodeJS.Timeout | undefined;
		app.addHook('onReady', async () => {
			purge();
			timer = setInterval(purge, RETENTION_PURGE_INTERVAL_MS);
			timer.unref();
		});
		app.addHook('onClose', async () => clearInterval(timer));
	},
	{ name: 'site-retention' },
);
