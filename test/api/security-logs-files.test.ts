import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';
import { openChat } from '../chat/helpers/chat-clients.js';
import { createLogger } from '../../src/lib/logger.js';

// The most permissive umask: whatever the service creates must still be private.
process.umask(0o000);

const mode = (path: string) => statSync(path).mode & 0o777;
const PAGE = 'https://shop.example.com';

for (const { dialect, skip } of await dialects()) {
  describe(`Security: logs and files at rest (${dialect})`, { skip }, () => {
    let s: TestServer;
    let db: TestDatabase;
    let dataDir: string;
    const logLines: string[] = [];
    before(async () => {
      db = await createTestDatabase(dialect);
      // Folders that do not exist yet, so the service creates them.
      dataDir = join(db.dataDir, 'service', 'data');
      const sink = new Writable({
        write(chunk, _enc, done) {
          logLines.push(String(chunk));
          done();
        },
      });
      s = await startTestServer(dialect, {
        db,
        logger: createLogger('info', sink as never),
        env: { DATA_DIR: dataDir, ...(dialect === 'sqlite' ? { DATABASE_URL: join(dataDir, 'db', 'parley.db') } : {}) },
      });
    });
    after(async () => {
      await s?.close();
      await db?.drop();
    });

    test('a token in a query parameter is never logged, however its name is encoded', async () => {
      const anonymous = new ApiClient(s.origin, null);
      for (const name of ['access_token', 'access%5Ftoken', '%61ccess_token', 'access%5ftoken']) {
        const res = await anonymous.get(`/v1/channels?${name}=${s.token}`);
        assert.equal(res.status, 200, name);
      }
      await anonymous.get('/v1/inbound/socialnet_chat?hub.mode=subscribe&hub.verify%5Ftoken=hunter2-verify&hub.challenge=1');
      const all = logLines.join('\n');
      // The request line names the route template, never the path's values or the query.
      assert.ok(all.includes('"route":"/v1/channels"'), 'the request is logged');
      assert.ok(!all.includes('access%5Ftoken'), 'the query is not logged');
      assert.ok(!all.includes(s.token), 'the token is not in the log');
      assert.ok(!all.includes('hunter2-verify'), 'the platform verify token is not in the log');
    });

    test('the data folder, the generated key, the database and stored files are private to the owner', async () => {
      // A write, so SQLite has its -wal and -shm files.
      const channel = await s.api.post('/v1/channels', { type: 'service_chat', name: 'files' });
      assert.equal(channel.status, 201);
      await s.api.patch(`/v1/channels/${channel.body.id}/settings`, { domains_whitelist: [PAGE] });
      const { client } = await openChat(s.origin, { channelId: channel.body.id, origin: PAGE });
      try {
        const ack = await client.request('file_upload', { name: 'note.txt', mime_type: 'text/plain', content_buffer: Buffer.from('private') });
        assert.ok(ack.url, JSON.stringify(ack));
      } finally {
        client.close();
      }

      assert.equal(mode(join(db.dataDir, 'service')), 0o700);
      assert.equal(mode(dataDir), 0o700);
      assert.equal(mode(join(dataDir, 'encryption.key')), 0o600);
      const files = join(dataDir, 'files');
      assert.equal(mode(files), 0o700);
      const [shard] = readdirSync(files);
      assert.ok(shard, 'a stored file');
      assert.equal(mode(join(files, shard)), 0o700);
      const stored = readdirSync(join(files, shard));
      assert.equal(stored.length, 1);
      assert.equal(mode(join(files, shard, stored[0]!)), 0o600);
      if (dialect === 'sqlite') {
        const file = join(dataDir, 'db', 'parley.db');
        assert.equal(mode(join(dataDir, 'db')), 0o700);
        for (const path of [file, `${file}-wal`, `${file}-shm`]) {
          assert.ok(existsSync(path), path);
          assert.equal(mode(path), 0o600, path);
        }
      }
    });
  });
}
