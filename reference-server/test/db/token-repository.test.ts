/**
 * The token repository (db/tokens.ts): a token remembers the tenant id it was issued for, and each
 * issue prunes expired tokens. (Lookups are not cached, so an issue empties no other caller's cache.)
 */
import { openDatabase } from '../../src/db/open';
import { createTokenRepository } from '../../src/db/tokens';

function setUp() {
	const db = openDatabase(':memory:');
	for (const id of ['a', 'b'])
		db.prepare(
			"INSERT INTO tenants (id, fqdn, created_at, updated_at) VALUES (?, NULL, 'x', 'x')",
		).run(id);
	const pk = (id: string) =>
		db.prepare<[string], { pk: number }>('SELECT pk FROM tenants WHERE id = ?').get(id)!.pk;
	return { db, tokens: createTokenRepository(db), pk };
}

test('a token remembers the tenant id it was issued for', () => {
	const { db, tokens, pk } = setUp();
	tokens.issue(pk('a'), 'hash-a', null, false);
	db.prepare("UPDATE tenants SET id = 'renamed' WHERE id = 'a'").run();
	expect(tokens.findByHash('hash-a')).toMatchObject({ tenant_id: 'renamed', issued_for: 'a' });
});

test('an issue deletes expired tokens of every tenant, keeps the live ones', () => {
	const { db, tokens, pk } = setUp();
	tokens.issue(pk('a'), 'expired', '2000-01-01T00:00:00.000Z', false);
	tokens.issue(pk('a'), 'forever', null, false);
	tokens.issue(pk('a'), 'later', '2999-01-01T00:00:00.000Z', false);
	tokens.issue(pk('b'), 'new', null, false);
	const hashes = db
		.prepare<[], { token_hash: string }>('SELECT token_hash FROM tokens ORDER BY id')
		.all()
		.map((row) => row.token_hash);
	expect(hashes).toEqual(['forever', 'later', 'new']);
});
