import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { test as nodeTest } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

export type Dialect = 'sqlite' | 'postgres';

/** Admin connection used to make one throw-away database per test suite. */
export const PG_ADMIN_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let pgReachable: Promise<boolean> | undefined;

export function postgresAvailable(): Promise<boolean> {
  pgReachable ??= (async () => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return pgReachable;
}

/** Where the migrations live: the template is keyed by a hash of these files. */
const MIGRATIONS_DIR = new URL('../../src/store/migrations/', import.meta.url);

/** Advisory-lock key under which one process at a time builds a template ("pltm" in ASCII). */
const TEMPLATE_LOCK = 0x706c746d;

let template: Promise<string> | undefined;

/**
 * The name of a PostgreSQL template database holding the current migrations, built once per
 * change of the migration files and shared by every test process: each test database is then
 * a file copy (`create database … template …`) instead of nine migrations' worth of DDL.
 * Test processes start at once, so the build runs under an advisory lock; it migrates a
 * database of its own and renames it only when complete, so a build that died midway is never used.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const hash = createHash('sha256');
    for (const file of readdirSync(MIGRATIONS_DIR).sort()) {
      hash
        .update(file)
        .update('\0')
        .update(readFileSync(new URL(file, MIGRATIONS_DIR)))
        .update('\0');
    }
    const name = `parley_tmpl_${hash.digest('hex').slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount === 0) {
        const building = `parley_tb_${randomBytes(6).toString('hex')}`;
        await admin.query(`create database ${building}`);
        const store = await openStore(databaseUrl(building));
        try {
          await store.migrate();
        } finally {
          await store.close();
        }
        await admin.query(`alter database ${building} rename to ${name}`);
        // No session may ever connect to it: a connected session makes `create database … template` fail.
        await admin.query(`alter database ${name} with is_template true allow_connections false`);
      }
    } finally {
      await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]).catch(() => undefined);
      await admin.end();
    }
    return name;
  })();
  // A failed build (e.g. PostgreSQL briefly unreachable) is retried by the next caller.
  template.catch(() => (template = undefined));
  return template;
}

function databaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface TestDatabase {
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * A fresh database: an empty SQLite file in a temp folder, or a new PostgreSQL database made
 * from the migrated template (`migrated: false` for an empty one, e.g. to test migrating).
 */
export async function createTestDatabase(dialect: Dialect, options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'));
  if (dialect === 'sqlite') {
    return {
      url: join(dataDir, 'parley.db'),
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `parley_t_${randomBytes(6).toString('hex')}`;
  const from = options.migrated === false ? '' : ` template ${await migratedTemplate()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${from}`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(name),
    dataDir,
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A suite's store: a fresh database with every migration applied and a store open on it (a
 * suite's `before`). The suite closes the store and drops the database in its `after`.
 */
export async function openTestStore(dialect: Dialect): Promise<{ db: TestDatabase; store: Store }> {
  const db = await createTestDatabase(dialect);
  const store = await openStore(db.url);
  await store.migrate();
  return { db, store };
}

export interface DialectRun {
  dialect: Dialect;
  /** A reason to skip the whole suite (PostgreSQL unreachable outside CI), or false. */
  skip: string | false;
  /** node:test's `test` for this dialect: on a PostgreSQL smoke run, tests outside the smoke set are skipped, saying why. */
  test: typeof nodeTest;
}

/**
 * The dialects a suite runs on. PostgreSQL is skipped with a visible reason when unreachable,
 * unless CI requires it.
 *
 * `postgresSmoke` (test names, or their beginnings) makes the PostgreSQL run a smoke test: only
 * those tests run there, the rest on SQLite only. For suites whose logic above the store is the
 * same on both dialects (connectors, the browser widget): the dialect itself is covered by the
 * store, queue and rate counter suites, which keep running everything on both.
 */
export async function dialects(options: { postgresSmoke?: string[] } = {}): Promise<DialectRun[]> {
  const pgOk = await postgresAvailable();
  if (!pgOk && process.env.CI === 'true') throw new Error(`PostgreSQL is required in CI but not reachable at ${PG_ADMIN_URL}`);
  return [
    { dialect: 'sqlite', skip: false, test: nodeTest },
    {
      dialect: 'postgres',
      skip: pgOk ? false : `PostgreSQL not reachable at ${PG_ADMIN_URL}`,
      test: options.postgresSmoke ? smokeOnly(options.postgresSmoke) : nodeTest,
    },
  ];
}

const SMOKE_SKIP = 'runs on SQLite only; on PostgreSQL this suite is a smoke test (the dialect is covered by the store suites)';

function smokeOnly(names: string[]): typeof nodeTest {
  const picked = (name: unknown) => typeof name === 'string' && names.some((n) => name.startsWith(n));
  const smoke = (name: unknown, ...rest: unknown[]) => {
    if (picked(name)) return (nodeTest as (...args: unknown[]) => Promise<void>)(name, ...rest);
    const fn = rest.find((r) => typeof r === 'function');
    return (nodeTest as (...args: unknown[]) => Promise<void>)(name, { skip: SMOKE_SKIP }, fn);
  };
  return Object.assign(smoke, nodeTest) as typeof nodeTest;
}
