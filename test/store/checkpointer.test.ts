import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { Checkpointer } from '../../src/store/sqlite/checkpointer.js';

const FRAME_BYTES = 4096 + 24;

describe('SQLite checkpointer', () => {
  test('under writes that never pause, the WAL still starts over: its file stays a small part of what was written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-ckpt-'));
    const path = join(dir, 'db.sqlite');
    const connection = new BetterSqlite3(path);
    try {
      connection.pragma('journal_mode = WAL');
      connection.pragma('synchronous = NORMAL');
      connection.exec('create table t (id integer primary key, k text, v blob); create index t_k on t (k)');
      const maxFrames = 200;
      const checkpointer = new Checkpointer(connection, path, createRequire(import.meta.url).resolve('better-sqlite3'), 20, maxFrames);
      const insert = connection.prepare('insert into t (k, v) values (?, ?)');
      const batch = connection.transaction((n: number) => {
        for (let i = 0; i < n; i++) insert.run(randomBytes(8).toString('hex'), randomBytes(1000));
      });
      let written = 0;
      // Two seconds of writes as a busy service makes them, and at least enough to fill the WAL's
      // limit many times over however slow the machine is today.
      const target = 12 * maxFrames * FRAME_BYTES;
      const minEnd = Date.now() + 2000;
      const end = Date.now() + 60_000;
      // A transaction every millisecond or so, as a busy service commits: never a pause long
      // enough for a passive checkpoint (it fsyncs) to catch up with the end of the WAL.
      while ((written < target || Date.now() < minEnd) && Date.now() < end) {
        batch(20);
        written += 20 * 1000;
        await new Promise((r) => setTimeout(r, 1));
      }
      const walBytes = statSync(`${path}-wal`).size;
      await checkpointer.stop();
      // Without the restart the WAL would hold everything written (and more: index pages).
      assert.ok(written > 10 * maxFrames * FRAME_BYTES, `only ${written} bytes written: the test did not load the WAL`);
      // The limit, plus what is written while a restart waits for its turn: a small part of it all.
      assert.ok(walBytes < written / 2, `WAL file is ${walBytes} bytes after ${written} bytes written`);
      assert.equal(connection.prepare('select count(*) from t').pluck().get(), written / 1000);
    } finally {
      connection.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the writer never checkpoints by itself while the worker runs, and does again once it stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-ckpt-'));
    const path = join(dir, 'db.sqlite');
    const connection = new BetterSqlite3(path);
    try {
      connection.pragma('journal_mode = WAL');
      const checkpointer = new Checkpointer(connection, path, createRequire(import.meta.url).resolve('better-sqlite3'));
      assert.equal(connection.pragma('wal_autocheckpoint', { simple: true }), 0);
      await checkpointer.stop();
      assert.equal(connection.pragma('wal_autocheckpoint', { simple: true }), 1000);
    } finally {
      connection.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
