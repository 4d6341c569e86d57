/**
 * The token lookup cache (db/tokens.ts): issuing a token leaves every other caller's cached lookup in
 * place (it used to empty the whole cache), a revocation drops its own tenant's entries only, and
 * each issue prunes expired tokens.
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
	// Changes a row behind the repository's back: a cached lookup still answers as before.
	const revokeBehind = (hash: string) =>
		db.prepare("UPDATE tokens SET revoked_at = 'x' WHERE token_hash = ?").run(hash);
	return { db, tokens: createTokenRepository(db), pk, revokeBehind };
}

test("an issue keeps every cached lookup; a revocation drops its own tenant's only", () => {
	const { tokens, pk, revokeBehind } = setUp();
	tokens.issue(pk('a'), 'hash-a', null, false);
	tokens.issue(pk('b'), 'hash-b', null, false);
	expect(tokens.findByHash('hash-a')?.revoked_at).toBeNull();
	expect(tokens.findByHash('hash-b')?.revoked_at).toBeNull();
	revokeBehind('hash-a');
	revokeBehind('hash-b');

	tokens.issue(pk('b'), 'hash-b2', null, false);
	// Still the cached rows: the issue did not empty the cache.
	expect(tokens.findByHash('hash-a')?.revoked_at).toBeNull();
	expect(tokens.findByHash('hash-b')?.revoked_at).toBeNull();

	tokens.issue(pk('b'), 'hash-b3', null, true);
	expect(tokens.findByHash('hash-b')?.revoked_at).not.toBeNull();
	expect(tokens.findByHash('hash-a')?.revoked_at).toBeNull();
});

test('a token remembers the tenant id it was issued for', () => {
	const { db, tokens, pk } = setUp();
	tokens.issue(pk('a'), 'hash-a', null, false);
	db.prepare("UPDATE tenants SET id = 'renamed' WHERE id = 'a'").run();
	tokens.invalidate();
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
