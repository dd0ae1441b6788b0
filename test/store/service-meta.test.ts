import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, openTestStore, type TestDatabase } from '../helpers/databases.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

/**
 * Facts about the installation (migration 016): the first value recorded under a name stands,
 * concurrent records from several processes agree on it, and the encrypted samples a key is
 * checked against on older installations are the stored secrets of each kind.
 */
for (const { dialect, skip } of await dialects()) {
  describe(`service meta (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      ({ db, store } = await openTestStore(dialect));
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('the first value recorded stands; a later record answers it', async () => {
      assert.equal(await store.serviceMeta.find('fact'), null);
      assert.equal(await store.serviceMeta.record('fact', 'first', 1), 'first');
      assert.equal(await store.serviceMeta.record('fact', 'second', 2), 'first');
      assert.equal(await store.serviceMeta.find('fact'), 'first');
    });

    test('concurrent records from several connections agree on one value', async () => {
      const other = dialect === 'postgres' ? await openStore(db.url) : store;
      try {
        const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? store : other).serviceMeta.record('race', `v${i}`, 1)));
        assert.equal(new Set(answers).size, 1, answers.join());
        assert.equal(await store.serviceMeta.find('race'), answers[0]);
      } finally {
        if (other !== store) await other.close();
      }
    });

    test('the encrypted samples: the newest stored secret of each kind, none without secrets', async () => {
      assert.deepEqual(await store.serviceMeta.encryptedSamples(), []);
      await store.accounts.insert({ id: 1, name: 'a', plan: 'free', hourly_limit: null, concurrency_limit: null, created_at: 1 });
      const channel = (id: number, secrets: string | null, webhook: string | null) => ({
        id,
        account_id: 1,
        type: 'service_chat',
        name: `c${id}`,
        mode: 'production',
        config: '{}',
        secrets,
        webhook_id: webhook === null ? null : id,
        webhook_url: webhook === null ? null : 'https://example.com/h',
        webhook_secret: webhook,
        webhook_ssl_verification: 1,
        settings: '{}',
        created_at: id,
        updated_at: id,
      });
      await store.db
        .insertInto('channels')
        .values([channel(1, 'creds-1', 'hook-1'), channel(2, 'creds-2', null), channel(3, null, null)])
        .execute();
      assert.deepEqual(await store.serviceMeta.encryptedSamples(), ['creds-2', 'hook-1']);
    });
  });
}
