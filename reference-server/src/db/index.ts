import { openDatabase, type SqliteDatabase } from './open';
import { createTenantRepository, type TenantRepository } from './tenants';
import { createTokenRepository, type TokenRepository } from './tokens';
import { createPageRepository, type PageRepository } from './pages';
import { createSettingsRepository, type SettingsRepository } from './settings';
import { createNotificationRepository, type NotificationRepository } from './notifications';
import { createVariableRepository, type VariableRepository } from './variables';
import { createAssetRepository, type AssetRepository } from './assets';
import { createContactFormRepository, type ContactFormRepository } from './contact-form';
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
	idempotency: IdempotencyRepository;
}

function createStore(db: SqliteDatabase): Store {
	const tokens = createTokenRepository(db);
	return {
		db,
		tenants: createTenantRepository(db, () => tokens.invalidate()),
		tokens,
		pages: createPageRepository(db),
		settings: createSettingsRepository(db),
		notifications: createNotificationRepository(db),
		variables: createVariableRepository(db),
		assets: createAssetRepository(db),
		contactForm: createContactFormRepository(db),
		idempotency: createIdempotencyRepository(db, IDEMPOTENCY_TTL_MS),
	};
}

export function openStore(file: string): Store {
	const store = createStore(openDatabase(file));
	store.idempotency.purgeInFlight();
	store.idempotency.purgeExpired();
	return store;
}
