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
import { createGroupCommit, type GroupCommit } from './group-commit';
import { startCheckpointer } from './checkpointer';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The database and one repository per table group. */
export interface Store {
	db: SqliteDatabase;
	/** Writes of one event-loop turn, committed together (db/group-commit.ts). */
	commits: GroupCommit;
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
	const commits = createGroupCommit(db);
	return {
		db,
		commits,
		tenants: createTenantRepository(db, () => tokens.invalidate()),
		tokens,
		pages: createPageRepository(db),
		settings: createSettingsRepository(db),
		notifications: createNotificationRepository(db),
		variables: createVariableRepository(db),
		assets: createAssetRepository(db),
		contactForm: createContactFormRepository(db),
		idempotency: createIdempotencyRepository(db, commits, IDEMPOTENCY_TTL_MS),
	};
}

/** How often the checkpoint thread folds the WAL into the database file (db/checkpointer.ts). */
const CHECKPOINT_INTERVAL_MS = 250;

export interface OpenStore extends Store {
	/** Commits what is pending, stops the checkpoint thread and closes the database. */
	close(): Promise<void>;
}

export function openStore(file: string, onError: (message: string) => void = () => undefined): OpenStore {
	const store = createStore(openDatabase(file));
	store.idempotency.purgeInFlight();
	store.idempotency.purgeExpired();
	const checkpointer = file === ':memory:' ? undefined : startCheckpointer(store.db, file, CHECKPOINT_INTERVAL_MS, onError);
	return {
		...store,
		async close() {
			store.commits.flush();
			await checkpointer?.stop();
			store.db.close();
		},
	};
}
