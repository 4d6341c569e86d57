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
import { createGroupCommit, type GroupCommit } from './group-commit';
import { startCheckpointer } from './checkpointer';
import { RenderedListCache } from './rendered-lists';

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
	contactFormTestWebhooks: ContactFormTestWebhookRepository;
	contactFormClaims: ContactFormClaimRepository;
	idempotency: IdempotencyRepository;
}

function createStore(db: SqliteDatabase, listCacheBytes: number): Store {
	const tokens = createTokenRepository(db);
	const commits = createGroupCommit(db);
	return {
		db,
		commits,
		tenants: createTenantRepository(db, () => tokens.invalidate()),
		tokens,
		pages: createPageRepository(db, new RenderedListCache(listCacheBytes)),
		settings: createSettingsRepository(db),
		notifications: createNotificationRepository(db),
		variables: createVariableRepository(db),
		assets: createAssetRepository(db),
		contactForm: createContactFormRepository(db),
		contactFormTestWebhooks: createContactFormTestWebhookRepository(db),
		contactFormClaims: createContactFormClaimRepository(db),
		idempotency: createIdempotencyRepository(db, commits, IDEMPOTENCY_TTL_MS),
	};
}

/** How often the checkpoint thread folds the WAL into the database file (db/checkpointer.ts)... */
const CHECKPOINT_INTERVAL_MS = 250;
/** ...and the WAL size (16 MB of 4 KB pages) from which it empties the file. */
const TRUNCATE_AFTER_FRAMES = 4096;

export interface OpenStore extends Store {
	/** Commits what is pending, stops the checkpoint thread and closes the database. */
	close(): Promise<void>;
}

export interface StoreOptions {
	/** Budget of the cache of rendered page listings, in bytes; 0 turns it off. */
	listCacheBytes?: number;
	/** Told when a WAL checkpoint fails (it is retried). */
	onCheckpointError?: (message: string) => void;
	/** Checkpoint timing (tests); defaults: every 250 ms, the file emptied above 4,096 frames. */
	checkpoint?: { intervalMs: number; truncateAfterFrames: number };
	/** Told what a migration changed in the data (page urls moved), to be logged. */
	onMigration?: MigrationReport;
}

export function openStore(file: string, options: StoreOptions = {}): OpenStore {
	const store = createStore(openDatabase(file, options.onMigration), options.listCacheBytes ?? 0);
	store.idempotency.purgeInFlight();
	store.idempotency.purgeExpired();
	const checkpointer =
		file === ':memory:'
			? undefined
			: startCheckpointer(store.db, file, {
					intervalMs: CHECKPOINT_INTERVAL_MS,
					truncateAfterFrames: TRUNCATE_AFTER_FRAMES,
					...options.checkpoint,
					onError: options.onCheckpointError,
				});
	return {
		...store,
		async close() {
			store.commits.flush();
			await checkpointer?.stop();
			store.db.close();
		},
	};
}
