import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, openTestStore, type TestDatabase } from '../helpers/databases.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

/**
 * Bodies bound to inbound signatures (migration 014): the first body wins for as long as the
 * signature lives, the same body again is accepted, concurrent claims agree on one winner, and
 * expired bindings are replaced and swept.
 */
for (const { dialect, skip } of await dialects()) {
  describe(`signature bindings (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      ({ db, store } = await openTestStore(dialect));
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('the first body holds the binding until it expires; the same body again is accepted', async () => {
      const bindings = store.signatureBindings;
      assert.equal(await bindings.claim('email:a', 'digest-1', 2_000, 1_000), true);
      assert.equal(await bindings.claim('email:a', 'digest-1', 2_000, 1_500), true, 'a retry');
      assert.equal(await bindings.claim('email:a', 'digest-2', 2_000, 1_999), false, 'another body while it lives');
      assert.equal(await bindings.claim('email:a', 'digest-2', 2_000, 2_000), false, 'still alive at its expiry');
      assert.equal(await bindings.claim('email:a', 'digest-2', 5_000, 2_001), true, 'expired: a new binding');
      assert.equal(await bindings.claim('email:a', 'digest-1', 5_000, 2_002), false);
    });

    test('concurrent claims of one signature with different bodies: exactly one wins, on every connection', async () => {
      const other = dialect === 'postgres' ? await openStore(db.url) : store;
      try {
        const claims = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? store : other).signatureBindings.claim('email:race', `digest-${i}`, 10_000, 1_000)),
        );
        assert.equal(claims.filter(Boolean).length, 1, JSON.stringify(claims));
      } finally {
        if (other !== store) await other.close();
      }
    });

    test('expired bindings are swept by later claims', async () => {
      for (let i = 0; i < 5; i++) await store.signatureBindings.claim(`email:old-${i}`, 'd', 100, 50);
      await store.signatureBindings.claim('email:new', 'd', 10_000, 1_000);
      const left = await store.db.selectFrom('inbound_signature_bindings').select('binding').where('binding', 'like', 'email:old-%').execute();
      assert.deepEqual(left, []);
    });
  });
}
