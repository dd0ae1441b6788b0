import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/** Another process on the same file: on "go" it takes the write lock (waiting up to 5 s), writes, holds it 300 ms, commits. */
const OTHER_WRITER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.pragma('busy_timeout = 5000');
require('node:readline').createInterface({ input: process.stdin }).once('line', () => {
  db.exec('begin immediate');
  db.prepare("insert into t (v) values ('other')").run();
  console.log('locked');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
  db.exec('commit');
  console.log('done');
  db.close();
});
console.log('ready');
`;

describe('SQLite transactions', () => {
  test('a transaction that reads and then writes is not refused when another connection takes the write lock in between', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-tx-'));
    const path = join(dir, 'db.sqlite');
    const store = SqliteStore.open(path);
    const other = spawn(process.execPath, ['-e', OTHER_WRITER, createRequire(import.meta.url).resolve('better-sqlite3'), path], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      await sql`create table t (id integer primary key, v text not null)`.execute(store.db);
      const lines = createInterface({ input: other.stdout! })[Symbol.asyncIterator]();
      assert.equal((await lines.next()).value, 'ready');
      await store.db.transaction().execute(async (trx) => {
        await sql`select count(*) as n from t`.execute(trx);
        other.stdin!.write('go\n');
        // Time for the other process to take the lock, if this transaction has not taken it.
        await new Promise((r) => setTimeout(r, 200));
        await sql`insert into t (v) values ('main')`.execute(trx);
      });
      assert.equal((await lines.next()).value, 'locked');
      assert.equal((await lines.next()).value, 'done');
      const rows = await sql<{ v: string }>`select v from t order by id`.execute(store.db);
      // This transaction held the lock from its start, so the other writer came after it.
      assert.deepEqual(
        rows.rows.map((r) => r.v),
        ['main', 'other'],
      );
    } finally {
      other.kill();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
