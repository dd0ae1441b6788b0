import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimKeyFile, keyFileOf, loadConfig, loadSettings, newEncryptionKey, ConfigError } from '../../src/config.js';
import { CONNECTOR_SETTINGS } from '../../src/connectors/registry-defaults.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'parley-config-'));

test('defaults: port 8080, SQLite under the data folder, base url ending in /v1, retry schedule of the spec', () => {
  const dir = dataDir();
  const c = loadConfig({ DATA_DIR: dir });
  assert.equal(c.port, 8080);
  assert.equal(c.databaseUrl, join(dir, 'parley.db'));
  assert.equal(c.publicUrl, 'http://localhost:8080/v1');
  assert.deepEqual(c.webhook.retryScheduleSeconds, [60, 300, 1200, 3600, 10800, 28800]);
  assert.equal(c.webhook.timeoutMs, 60000);
  assert.equal(c.role, 'all');
});

test('an encryption key is generated once into the data folder and reused', () => {
  const dir = dataDir();
  const first = loadConfig({ DATA_DIR: dir }).encryptionKey;
  assert.equal(Buffer.from(first, 'base64').length, 32);
  assert.equal(readFileSync(join(dir, 'encryption.key'), 'utf8').trim(), first);
  assert.equal(loadConfig({ DATA_DIR: dir }).encryptionKey, first);
});

test('a process that finds the key file made by another since it looked takes that key and leaves the file as it is', () => {
  // Processes starting at once on one data folder: each saw no file, and one made it first.
  const dir = dataDir();
  const file = keyFileOf(dir);
  const mine = newEncryptionKey();
  assert.equal(claimKeyFile(file, mine), mine);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const theirs = newEncryptionKey();
  assert.equal(claimKeyFile(file, theirs), mine);
  assert.equal(readFileSync(file, 'utf8').trim(), mine);
  assert.equal(loadConfig({ DATA_DIR: dir }).encryptionKey, mine);
  // Each attempt's own draft is gone.
  assert.deepEqual(readdirSync(dir), ['encryption.key']);
});

test('where the key and the public address come from: a set value, or the key file and the default', () => {
  const dir = dataDir();
  const defaults = loadConfig({ DATA_DIR: dir });
  assert.equal(defaults.encryptionKeyFile, join(dir, 'encryption.key'));
  assert.equal(defaults.publicUrlSet, false);
  const set = loadConfig({ DATA_DIR: dir, ENCRYPTION_KEY: 'A'.repeat(43) + '=', PUBLIC_URL: 'https://parley.example.com/v1' });
  assert.equal(set.encryptionKeyFile, null);
  assert.equal(set.encryptionKey, 'A'.repeat(43) + '=');
  assert.equal(set.publicUrlSet, true);
});

test('a key file that does not hold a key stops the start naming ENCRYPTION_KEY and the file', () => {
  const dir = dataDir();
  writeFileSync(join(dir, 'encryption.key'), 'not a key\n');
  assert.throws(
    () => loadConfig({ DATA_DIR: dir }),
    (error: unknown) =>
      error instanceof ConfigError && error.message.includes('ENCRYPTION_KEY is not set and ' + join(dir, 'encryption.key') + ' does not hold a key'),
  );
});

test('bad values stop the start with a message naming the variable', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'x' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ ROLE: 'boss' }, /ROLE/],
    [{ WEBHOOK_RETRY_SCHEDULE: '1,,2' }, /WEBHOOK_RETRY_SCHEDULE/],
    [{ PUBLIC_URL: 'localhost:8080/v1' }, /PUBLIC_URL/],
    [{ ENCRYPTION_KEY: 'short' }, /ENCRYPTION_KEY/],
    [{ TLS_CERT_FILE: '/x.pem' }, /TLS_CERT_FILE/],
  ];
  for (const [env, pattern] of cases) {
    assert.throws(
      () => loadConfig({ DATA_DIR: dataDir(), ...env }),
      (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
      JSON.stringify(env),
    );
  }
});

test('PUBLIC_URL and a postgres DATABASE_URL are taken as given', () => {
  const c = loadConfig({ DATA_DIR: dataDir(), PUBLIC_URL: 'https://api.example.com/v1/', DATABASE_URL: 'postgres://u@h/db' });
  assert.equal(c.publicUrl, 'https://api.example.com/v1');
  assert.equal(c.databaseUrl, 'postgres://u@h/db');
});

test('DATABASE_POOL_SIZE sets the query pool of the PostgreSQL store (10 unless set)', () => {
  assert.equal(loadConfig({ DATA_DIR: dataDir() }).databasePoolSize, 10);
  assert.equal(loadConfig({ DATA_DIR: dataDir(), DATABASE_POOL_SIZE: '4' }).databasePoolSize, 4);
  for (const value of ['0', 'x', '2.5']) {
    assert.throws(
      () => loadConfig({ DATA_DIR: dataDir(), DATABASE_POOL_SIZE: value }),
      (e: unknown) => e instanceof ConfigError && /DATABASE_POOL_SIZE/.test(e.message),
      value,
    );
  }
});

test("a connector's variables are checked by its own fragment, with the same message naming the variable", () => {
  const config = loadConfig({ DATA_DIR: dataDir(), SOCIALNET_API_VERSION: '25', PLATFORM_TIMEOUT_MS: '2500', MEDIA_ALLOWLIST: ' 10.0.0.1:80, ,host ' });
  assert.throws(
    () => loadSettings(config, CONNECTOR_SETTINGS),
    (e: unknown) => e instanceof ConfigError && /SOCIALNET_API_VERSION="25"/.test(e.message),
  );
  const settings = loadSettings(loadConfig({ DATA_DIR: dataDir(), PLATFORM_TIMEOUT_MS: '2500', MEDIA_ALLOWLIST: ' 10.0.0.1:80, ,host ' }), CONNECTOR_SETTINGS);
  assert.equal(settings.platforms.timeoutMs, 2500);
  assert.deepEqual(settings.platforms.mediaAllowlist, ['10.0.0.1:80', 'host']);
  assert.equal(settings.socialnet_chat.apiVersion, 'v25.0');
  assert.equal(settings.botmsg.secretHeaderName, 'X-Botmsg-Bot-Api-Secret-Token');
});

test('SHUTDOWN_DRAIN_SECONDS: 0 unless set, 0 to 10 taken, outside refused naming the variable', () => {
  const dir = dataDir();
  assert.equal(loadConfig({ DATA_DIR: dir }).shutdownDrainMs, 0);
  assert.equal(loadConfig({ DATA_DIR: dir, SHUTDOWN_DRAIN_SECONDS: '0' }).shutdownDrainMs, 0);
  assert.equal(loadConfig({ DATA_DIR: dir, SHUTDOWN_DRAIN_SECONDS: '10' }).shutdownDrainMs, 10_000);
  for (const bad of ['11', '-1', '1.5'])
    assert.throws(
      () => loadConfig({ DATA_DIR: dir, SHUTDOWN_DRAIN_SECONDS: bad }),
      (e: unknown) => e instanceof ConfigError && e.message.includes('SHUTDOWN_DRAIN_SECONDS'),
    );
});

test('webhook concurrency defaults: 128 calls per worker, at most 64 to one receiver, 64 for one account', () => {
  const c = loadConfig({ DATA_DIR: dataDir() });
  assert.equal(c.webhook.concurrency, 128);
  assert.equal(c.webhook.endpointConcurrency, 64);
  assert.equal(c.webhook.accountConcurrency, 64);
});
