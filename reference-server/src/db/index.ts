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
		idempotency: createIdempotencyRepository(db),
	};
}

/** The database and one repository per table group. */
export type Store = ReturnType<typeof repositories> & { db: SqliteDatabase };

/**
 * Opens the store at `file` (or ':memory:') with its schema up to date; `onMigration` is told what a
 * migration changed in the data (page urls moved), to be logged.
 */
export function openStore(file: string, onMigration?: MigrationReport): Store & { close(): void } {
	const db = openDatabase(file, onMigration);
	return { ...repositories(db), db, close: () => db.close() };
}
