import { openDatabase, type SqliteDatabase } from './open';
import type { MigrationReport } from './migrations';
import { createTenantRepository } from './tenants';
import { createTokenRepository } from './tokens';
import { createPageRepository } from './pages';
import { createSettingsRepository } from './settings';
import { createNotificationRepository } from './notifications';
import { createVariableRepository } from './variables';
import { createAssetRepository } from './assets';
import { createContactFormRepository } from './contact-form';
import { createContactFormTestWebhookRepository } from './contact-form-test-webhooks';
import { createContactFormClaimRepository } from './contact-form-claims';
import { createIdempotencyRepository } from './idempotency';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

function repositories(db: SqliteDatabase) {
	return {
		tenants: createTenantRepository(db),
		tokens: createTokenRepository(db),
		pages: createPageRepository(db),
		settings: createSettingsRepository(db),
		notifications: createNotificationRepository(db),
		variables: createVariableRepository(db),
		assets: createAssetRepository(db),
		contactForm: createContactFormRepository(db),
		contactFormTestWebhooks: createContactFormTestWebhookRepository(db),
		contactFormClaims: createContactFormClaimRepository(db),
		idempotency: createIdempotencyRepository(db, IDEMPOTENCY_TTL_MS),
	};
}

/** The database and one repository per table group. */
export type Store = ReturnType<typeof repositories> & { db: SqliteDatabase };

export interface StoreOptions {
	/** Told what a migration changed in the data (page urls moved), to be logged. */
	onMigration?: MigrationReport;
}

/** Opens the store at `file` (or ':memory:') with its schema up to date and expired replays gone. */
export function openStore(file: string, options: StoreOptions = {}): Store & { close(): void } {
	const db = openDatabase(file, options.onMigration);
	const store = { ...repositories(db), db, close: () => db.close() };
	store.idempotency.purgeExpired();
	return store;
}
