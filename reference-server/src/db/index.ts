import { openDatabase, type SqliteDatabase } from './open';
import type { MigrationReport } from './migrations';
import { createTenantRepository, type TenantRepository } from './tenants';
import { createTokenRepository, type TokenRepository } from './tokens';
import { createPageRepository, type PageRepository } from './pages';
import { createSettingsRepository, type SettingsRepository } from './settings';
import { createNotificationRepository, type NotificationRepository } from './notifications';
import { createVariableRepository, type VariableRepository } from './variables';
import { createAssetRepository, type AssetRepository } from './assets';
import { createContactFormRepository, type ContactFormRepository } from './contact-form';
import {
	createContactFormTestWebhookRepository,
	type ContactFormTestWebhookRepository,
} from './contact-form-test-webhooks';
import {
	createContactFormClaimRepository,
	type ContactFormClaimRepository,
} from './contact-form-claims';
import { createIdempotencyRepository, type IdempotencyRepository } from './idempotency';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The database and one repository per table group. */
export interface Store {
	db: SqliteDatabase;
	tenants: TenantRepository;
	tokens: TokenRepository;
	pages: PageRepository;
	settings: SettingsRepository;
	notifications: NotificationRepository;
	variables: VariableRepository;
	assets: AssetRepository;
	contactForm: ContactFormRepository;
	contactFormTestWebhooks: ContactFormTestWebhookRepository;
	contactFormClaims: ContactFormClaimRepository;
	idempotency: IdempotencyRepository;
}

export interface OpenStore extends Store {
	close(): void;
}

export interface StoreOptions {
	/** Told what a migration changed in the data (page urls moved), to be logged. */
	onMigration?: MigrationReport;
}

/** Opens the store at `file` (or ':memory:') with its schema up to date and stale idempotency rows gone. */
export function openStore(file: string, options: StoreOptions = {}): OpenStore {
	const db = openDatabase(file, options.onMigration);
	const store: OpenStore = {
		db,
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
		close: () => db.close(),
	};
	store.idempotency.purgeInFlight();
	store.idempotency.purgeExpired();
	return store;
}
