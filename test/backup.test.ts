import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { accountWithToken, cli, cliRaw, startServerProcess } from './helpers/processes.js';
import { freePort } from './helpers/runtime.js';
import { ApiClient } from './helpers/api-client.js';
import { eventually } from './helpers/waits.js';

/**
 * parley backup and restore on SQLite, with real processes: a backup taken while a server takes
 * Send Message load, restored into a new data folder and served from there; and the refusals.
 * Backups of PostgreSQL are PostgreSQL's tools' work: the commands only say so, without connecting.
 */

const SENDERS = 8;
/** The load's bound: it runs until the backup has finished, never beyond this many messages. */
const MAX_MESSAGES = 2000;

function integrity(path: string): string[] {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
  } finally {
    db.close();
  }
}

function messageCount(path: string): number {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe('parley backup and restore (sqlite)', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const c of cleanup.reverse()) await c();
  });
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-backup-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  /** A SQLite database with the schema, as `parley migrate` makes it. */
  const database = async (): Promise<TestDatabase> => {
    const db = await createTestDatabase('sqlite');
    cleanup.push(() => db.drop());
    await cli(['migrate'], { DATABASE_URL: db.url, DATA_DIR: db.dataDir });
    return db;
  };

  test('a backup taken under Send Message load restores every message acknowledged before it began, its secrets and files', async (t) => {
    const db = await database();
    const env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, AUTH_CACHE_MS: '0', WEBHOOK_ALLOWLIST: '127.0.0.1' };
    const { token } = await accountWithToken(env);
    const server = await startServerProcess({ ...env, BOOTSTRAP_ACCOUNT: 'false' }, await freePort());
    cleanup.push(() => server.kill('SIGKILL'));
    const api = new ApiClient(server.origin, token);
    const channel = await api.post('/v1/channels', {
      type: 'mobile',
      name: 'SMS',
      mode: 'test',
      provider: { type: 'smsprovider', sender_id: 'Acme', access_token: 'key', signing_key: 'sign' },
      webhook: { url: `http://127.0.0.1:${await freePort()}/hook` },
    });
    assert.equal(channel.status, 201, channel.text);
    const secret = channel.body.webhook.secret as string;
    assert.ok(secret.length > 0);
    // The bytes of a stored file, as the service keeps them under FILES_DIR.
    mkdirSync(join(db.dataDir, 'files', 'ab'), { recursive: true });
    writeFileSync(join(db.dataDir, 'files', 'ab', 'ab-stored'), 'stored bytes');

    // A reader that stays in one read transaction from before the load to after the backup: no
    // checkpoint can move a page past its snapshot into the database file, so everything the load
    // writes stays in the WAL, and the backup has to take the WAL's pages, not only the file's.
    const reader = new BetterSqlite3(db.url, { readonly: true, fileMustExist: true });
    cleanup.push(() => {
      if (reader.open) reader.close();
    });
    reader.exec('BEGIN');
    const heldBack = (reader.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;

    // Senders keep sending, a little apart, until the backup has finished.
    const acknowledged: string[] = [];
    let backupDone = false;
    let started = 0;
    const sender = async (n: number) => {
      while (!backupDone && started < MAX_MESSAGES) {
        started += 1;
        const res = await api.post('/v1/messages', {
          channel: { id: channel.body.id },
          contact: { phone_number: `+42060100${String(n).padStart(4, '0')}` },
          content: { type: 'text', payload: `load ${started}` },
        });
        assert.equal(res.status, 201, res.text);
        acknowledged.push(res.body.id as string);
        await sleep(10);
      }
    };
    const load = Promise.all(Array.from({ length: SENDERS }, (_, n) => sender(n)));
    await eventually(async () => (acknowledged.length >= 100 ? true : undefined), 30_000, '100 acknowledged messages');

    const dir = tempDir();
    const file = join(dir, 'parley-backup.db');
    const before = [...acknowledged];
    const backup = await cliRaw(['backup', file], env);
    const duringBackup = acknowledged.length - before.length;
    backupDone = true;
    await load;
    reader.exec('COMMIT');
    reader.close();
    assert.equal(heldBack, 0, 'the reader held its snapshot from before the load');
    assert.equal(backup.code, 0, backup.stderr);
    assert.ok(duringBackup > 0, 'the load went on while the backup ran');
    t.diagnostic(`${before.length} acknowledged before the backup, ${duringBackup} while it ran, ${acknowledged.length} in all`);
    const made = JSON.parse(backup.stdout);
    assert.equal(made.database, file);
    assert.equal(made.integrity, 'ok');
    assert.equal(made.key, 'file');
    assert.equal(made.key_file, `${file}.key`);
    // The stored file, and the marker the first start wrote into FILES_DIR (a restored server looks for it).
    assert.equal(made.files_copied, 2);
    assert.equal(readFileSync(`${file}.key`, 'utf8'), readFileSync(join(db.dataDir, 'encryption.key'), 'utf8'));
    assert.equal(mode(file), 0o600);
    assert.equal(mode(`${file}.key`), 0o600);
    assert.deepEqual(integrity(file), ['ok']);
    assert.ok(messageCount(file) >= before.length);

    // The running server's database is not replaced, not even with --force.
    const overRunning = await cliRaw(['restore', file, '--force'], env);
    assert.equal(overRunning.code, 1);
    assert.match(overRunning.stderr, /is open in another process \(a running server\?\): stop it before restoring/);
    assert.equal(await server.stop(), 0);

    // Restored into a new data folder, and served from there.
    const newDir = tempDir();
    const newEnv = { DATABASE_URL: join(newDir, 'parley.db'), DATA_DIR: newDir, AUTH_CACHE_MS: '0', WEBHOOK_ALLOWLIST: '127.0.0.1' };
    const restored = await cliRaw(['restore', file], newEnv);
    assert.equal(restored.code, 0, restored.stderr);
    assert.deepEqual(
      { ...JSON.parse(restored.stdout), migrations: undefined },
      {
        database: newEnv.DATABASE_URL,
        migrations: undefined,
        integrity: 'ok',
        key: 'written',
        key_file: join(newDir, 'encryption.key'),
        files: join(newDir, 'files'),
        files_copied: 2, // the file and the files marker
      },
    );
    assert.deepEqual(integrity(newEnv.DATABASE_URL), ['ok']);
    assert.equal(readFileSync(join(newDir, 'encryption.key'), 'utf8'), readFileSync(join(db.dataDir, 'encryption.key'), 'utf8'));
    assert.equal(mode(join(newDir, 'encryption.key')), 0o600);
    assert.equal(readFileSync(join(newDir, 'files', 'ab', 'ab-stored'), 'utf8'), 'stored bytes');

    const second = await startServerProcess({ ...newEnv, BOOTSTRAP_ACCOUNT: 'false' }, await freePort());
    cleanup.push(() => second.kill('SIGKILL'));
    const api2 = new ApiClient(second.origin, token);
    const missing: string[] = [];
    const queue = [...before];
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
          const res = await api2.get(`/v1/messages/${id}`);
          if (res.status !== 200) missing.push(`${id}: ${res.status}`);
        }
      }),
    );
    assert.deepEqual(missing, [], `of ${before.length} messages acknowledged before the backup`);
    const sameChannel = await api2.get(`/v1/channels/${channel.body.id}`);
    assert.equal(sameChannel.status, 200, sameChannel.text);
    // The view decrypts the channel's credentials and its webhook secret with the restored key.
    assert.equal(sameChannel.body.webhook.secret, secret, 'the restored key opens the channel secrets');
    assert.equal(await second.stop(), 0);

    // Restoring over that database needs --force; a key that does not open the secrets is refused.
    const again = await cliRaw(['restore', file], newEnv);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /parley\.db exists; add --force to replace it with the backup/);
    assert.equal((await cliRaw(['restore', file, '--force'], newEnv)).code, 0);

    const wrongKey = join(dir, 'wrong-key.db');
    copyFileSync(file, wrongKey);
    writeFileSync(`${wrongKey}.key`, `${randomBytes(32).toString('base64')}\n`);
    const thirdDir = tempDir();
    const refusedKey = await cliRaw(['restore', wrongKey], { DATA_DIR: thirdDir, DATABASE_URL: join(thirdDir, 'parley.db') });
    assert.equal(refusedKey.code, 1);
    assert.match(refusedKey.stderr, /the encryption key \(.*wrong-key\.db\.key\) does not open the backup's secrets/);
    assert.equal(existsSync(join(thirdDir, 'parley.db')), false, 'nothing was put in place');
    const wrongEnvKey = await cliRaw(['restore', file], {
      DATA_DIR: thirdDir,
      DATABASE_URL: join(thirdDir, 'parley.db'),
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    assert.equal(wrongEnvKey.code, 1);
    assert.match(wrongEnvKey.stderr, /ENCRYPTION_KEY is not the key kept with the backup/);

    // A data folder whose key file holds another key: replaced only with --force, the old one kept.
    const otherKey = `${randomBytes(32).toString('base64')}\n`;
    writeFileSync(join(thirdDir, 'encryption.key'), otherKey);
    const thirdEnv = { DATA_DIR: thirdDir, DATABASE_URL: join(thirdDir, 'parley.db') };
    const keyKept = await cliRaw(['restore', file], thirdEnv);
    assert.equal(keyKept.code, 1);
    assert.match(keyKept.stderr, /encryption\.key holds another key; add --force to replace it/);
    const keyReplaced = await cliRaw(['restore', file, '--force'], thirdEnv);
    assert.equal(keyReplaced.code, 0, keyReplaced.stderr);
    assert.equal(readFileSync(join(thirdDir, 'encryption.key'), 'utf8'), readFileSync(`${file}.key`, 'utf8'));
    const kept = readdirSync(thirdDir).filter((f) => f.startsWith('encryption.key.replaced-'));
    assert.equal(kept.length, 1);
    assert.equal(readFileSync(join(thirdDir, kept[0]!), 'utf8'), otherKey);
  });

  test('backup replaces an earlier backup only with --force; ENCRYPTION_KEY and --skip-files are noted, not written', async () => {
    const db = await database();
    const env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir };
    const file = join(tempDir(), 'b.db');
    const firstRun = await cliRaw(['backup', file], env);
    assert.equal(firstRun.code, 0, firstRun.stderr);
    const first = readFileSync(file);
    const again = await cliRaw(['backup', file], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /b\.db exists; add --force to replace the earlier backup/);
    const forced = await cliRaw(['backup', file, '--force'], env);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(integrity(file), ['ok']);
    assert.ok(first.length > 0);

    // With the key in the environment, no key file is written, and the output says so.
    const envKey = join(tempDir(), 'env.db');
    const withEnvKey = await cliRaw(['backup', envKey], { ...env, ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    assert.equal(withEnvKey.code, 0, withEnvKey.stderr);
    const out = JSON.parse(withEnvKey.stdout);
    assert.equal(out.key, 'ENCRYPTION_KEY');
    assert.equal(out.key_file, null);
    assert.match(out.notes.join('\n'), /ENCRYPTION_KEY and was not written/);
    assert.equal(existsSync(`${envKey}.key`), false);

    // --skip-files leaves FILES_DIR to the operator, and says so.
    mkdirSync(join(db.dataDir, 'files', 'cd'), { recursive: true });
    writeFileSync(join(db.dataDir, 'files', 'cd', 'cd-stored'), 'bytes');
    const noFiles = join(tempDir(), 'no-files.db');
    const skipped = await cliRaw(['backup', noFiles, '--skip-files'], env);
    assert.equal(skipped.code, 0, skipped.stderr);
    const skippedOut = JSON.parse(skipped.stdout);
    assert.deepEqual([skippedOut.files, skippedOut.files_copied], [null, null]);
    assert.match(skippedOut.notes.join('\n'), /not copied \(--skip-files\)/);
    assert.equal(existsSync(`${noFiles}.files`), false);
    assert.equal(existsSync(`${noFiles}.key`), true);

    const none = await cliRaw(['backup'], env);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /name one backup file/);
  });

  test('restore refuses what is not a Parley database, or one of a newer version', async () => {
    const dir = tempDir();
    const target = { DATA_DIR: join(dir, 'data'), DATABASE_URL: join(dir, 'data', 'parley.db') };
    const text = join(dir, 'notes.db');
    writeFileSync(text, 'these are not the pages of a database\n'.repeat(200));
    const notDb = await cliRaw(['restore', text], target);
    assert.equal(notDb.code, 1);
    assert.match(notDb.stderr, /notes\.db is not a SQLite database/);

    const other = join(dir, 'other.db');
    const foreign = new BetterSqlite3(other);
    foreign.exec('CREATE TABLE things (id INTEGER PRIMARY KEY)');
    foreign.close();
    const notParley = await cliRaw(['restore', other], target);
    assert.equal(notParley.code, 1);
    assert.match(notParley.stderr, /other\.db is not a Parley database: it has no schema_migrations table/);

    const db = await database();
    const newer = join(dir, 'newer.db');
    assert.equal((await cliRaw(['backup', newer], { DATABASE_URL: db.url, DATA_DIR: db.dataDir })).code, 0);
    const edit = new BetterSqlite3(newer);
    edit.prepare('INSERT INTO schema_migrations (name, timestamp) VALUES (?, ?)').run('999_from_the_future', new Date().toISOString());
    edit.close();
    const refused = await cliRaw(['restore', newer], target);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /newer\.db was made by a newer Parley: this version does not know its migrations 999_from_the_future/);
    assert.equal(existsSync(join(dir, 'data', 'parley.db')), false, 'nothing was put in place');

    const absent = await cliRaw(['restore', join(dir, 'absent.db')], target);
    assert.equal(absent.code, 1);
    assert.match(absent.stderr, /there is no backup file/);
  });

  test('on a PostgreSQL URL both commands point at PostgreSQL tools and docs/backups.md', async () => {
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/parley', DATA_DIR: tempDir() };
    const backup = await cliRaw(['backup', join(env.DATA_DIR, 'b.db')], env);
    assert.equal(backup.code, 1);
    assert.match(backup.stderr, /PostgreSQL database; parley backup copies SQLite stores only/);
    assert.match(backup.stderr, /pg_dump -Fc/);
    assert.match(backup.stderr, /pg_basebackup with WAL archiving for point-in-time recovery/);
    assert.match(backup.stderr, /encryption key .* FILES_DIR/);
    assert.match(backup.stderr, /docs\/backups\.md/);
    assert.equal(existsSync(join(env.DATA_DIR, 'b.db')), false);
    const restore = await cliRaw(['restore', join(env.DATA_DIR, 'b.db')], env);
    assert.equal(restore.code, 1);
    assert.match(restore.stderr, /pg_restore --clean --if-exists --no-owner/);
    assert.match(restore.stderr, /docs\/backups\.md/);
  });
});
