/**
 * The SQLite file as a whole, for parley backup and restore (backup/commands.ts): an online copy,
 * the checks that a copy is a Parley database, and whether a process has the file open.
 */
import BetterSqlite3 from 'better-sqlite3';
import { chmod, mkdtemp, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MIGRATIONS } from './migrations/index.js';
import { PRIVATE_FILE_MODE } from '../lib/private-files.js';

/** Something the operator has to fix (not a Parley database, a server running): exit code 1. */
export class BackupRefusal extends Error {}

/** What a checked copy holds. */
export interface CheckedDatabase {
  /** The migrations it records, in order. */
  migrations: string[];
  /** One value encrypted with the service's key (a channel's credentials or webhook secret), if any. */
  sampleSecret: string | null;
}

const KNOWN = new Set(MIGRATIONS.map((m) => m.name));

/**
 * Opens an existing SQLite file without changing it. Errors of a file that is not a database
 * only show at the first statement, so one is run here.
 */
export function openExisting(path: string): BetterSqlite3.Database {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(path, { fileMustExist: true });
  } catch (error) {
    throw new BackupRefusal(`cannot open ${path}: ${(error as Error).message}`);
  }
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
  } catch (error) {
    db.close();
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new BackupRefusal(`${path} is not a SQLite database`);
    throw error;
  }
  return db;
}

/** Whether the database has Parley's migrations table: a quick look before a copy, checkParleyDatabase after it. */
export function hasMigrationsTable(db: BetterSqlite3.Database): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'`).get() !== undefined;
}

/**
 * A Parley database: the migrations table lists only migrations this version knows, starting with
 * the first, and SQLite's integrity check passes.
 */
export function checkParleyDatabase(db: BetterSqlite3.Database, path: string): CheckedDatabase {
  if (!hasMigrationsTable(db)) throw new BackupRefusal(`${path} is not a Parley database: it has no schema_migrations table`);
  const migrations = (db.prepare('SELECT name FROM schema_migrations ORDER BY name').all() as { name: string }[]).map((r) => r.name);
  if (migrations[0] !== MIGRATIONS[0]!.name) throw new BackupRefusal(`${path} is not a Parley database: its first migration is not ${MIGRATIONS[0]!.name}`);
  const unknown = migrations.filter((m) => !KNOWN.has(m));
  if (unknown.length > 0) throw new BackupRefusal(`${path} was made by a newer Parley: this version does not know its migrations ${unknown.join(', ')}`);
  const problems = (db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map((r) => r.integrity_check);
  if (problems.length !== 1 || problems[0] !== 'ok') throw new BackupRefusal(`${path} failed SQLite's integrity check: ${problems.slice(0, 5).join('; ')}`);
  const sample = db
    .prepare(`SELECT coalesce(webhook_secret, secrets) AS value FROM channels WHERE webhook_secret IS NOT NULL OR secrets IS NOT NULL LIMIT 1`)
    .get() as { value: string } | undefined;
  return { migrations, sampleSecret: sample?.value ?? null };
}

/**
 * Copies the database `source` holds open into `target` (which must not exist) with SQLite's
 * online backup: all pages in one step, under one read transaction, so the copy is one consistent
 * moment (what the WAL held then included) while other connections keep writing. In steps, each
 * write by another connection would start the copy over, which under steady load may never end.
 * The copy is made in a private folder beside the target and moved in place once complete, so
 * a failed copy never leaves a partial file under the target's name. `beforeMove` may check the
 * copy (or clear the way) first; if it throws, nothing is moved.
 */
export async function copyDatabase(source: BetterSqlite3.Database, target: string, beforeMove?: (copy: string) => Promise<void>): Promise<void> {
  const staging = await mkdtemp(join(dirname(target), `.${basename(target)}.`));
  try {
    const copy = join(staging, 'copy.db');
    await source.backup(copy, { progress: () => 0x7fffffff });
    await chmod(copy, PRIVATE_FILE_MODE);
    await beforeMove?.(copy);
    await rename(copy, target);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Whether a process has the database open: every connection to a database in WAL mode holds a
 * shared lock on the file, so an exclusive lock is refused while a server (or any other
 * connection) has it open. The probe waits for no one and changes nothing.
 */
export function inUse(path: string): boolean {
  const db = new BetterSqlite3(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_BUSY') return true;
    // Not a database at all: no server can have it open as one.
    if (code === 'SQLITE_NOTADB') return false;
    throw error;
  } finally {
    db.close();
  }
}
