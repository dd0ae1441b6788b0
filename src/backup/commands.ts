import { parseArgs } from 'node:util';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { chmod, copyFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { loadConfig, keyFileOf, type Config } from '../config.js';
import { isSqliteUrl } from '../store/database-url.js';
import { SecretBox } from '../lib/crypto.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensurePrivateDir } from '../lib/private-files.js';
import { BackupRefusal, checkParleyDatabase, copyDatabase, hasMigrationsTable, inUse, openExisting, type CheckedDatabase } from '../store/sqlite-backup.js';

/**
 * `parley backup <file>` and `parley restore <file>` for the SQLite store (docs/backups.md). A
 * backup is up to three things side by side: `<file>` (the database), `<file>.key` (the key file of
 * the data folder; not written when the key is ENCRYPTION_KEY) and `<file>.files/` (FILES_DIR).
 * A PostgreSQL database is backed up with PostgreSQL's own tools; both commands say how.
 */

export const BACKUP_USAGE = `  backup <file> [--force] [--skip-files]
                                          online copy of the SQLite database to <file>, the key
                                          file to <file>.key, FILES_DIR to <file>.files/
                                          (--force replaces an earlier backup; docs/backups.md)
  restore <file> [--force]                put a backup in place of DATABASE_URL (stop the server
                                          first; --force replaces an existing database)`;

const KEY_PATTERN = /^[A-Za-z0-9+/]{43}=$/;

const POSTGRES_BACKUP =
  "DATABASE_URL names a PostgreSQL database; parley backup copies SQLite stores only. Use PostgreSQL's tools: " +
  'pg_dump -Fc --file parley.dump "$DATABASE_URL" for a dump, or pg_basebackup with WAL archiving for point-in-time recovery. ' +
  'Keep the encryption key (ENCRYPTION_KEY, or encryption.key in DATA_DIR) and FILES_DIR with it. See docs/backups.md.';
const POSTGRES_RESTORE =
  'DATABASE_URL names a PostgreSQL database; parley restore puts SQLite backups in place only. Restore a dump with ' +
  'pg_restore --clean --if-exists --no-owner -d "$DATABASE_URL" parley.dump (or recover a base backup), with the same ' +
  'encryption key and FILES_DIR beside it. See docs/backups.md.';

class UsageError extends Error {}

/**
 * loadConfig makes a key file when there is none. A backup must not make up a key its database was
 * not encrypted with, and a restore brings its own; so the rest of the configuration is read with
 * a stand-in key (never used) and the key itself is read here.
 */
function readConfig(): Config {
  const env = process.env;
  return loadConfig({ ...env, ENCRYPTION_KEY: env.ENCRYPTION_KEY || `${'A'.repeat(43)}=` });
}

function environmentKey(): string | undefined {
  return process.env.ENCRYPTION_KEY || undefined;
}

function readKeyFile(path: string): string | null {
  if (!existsSync(path)) return null;
  const key = readFileSync(path, 'utf8').trim();
  if (!KEY_PATTERN.test(key)) throw new BackupRefusal(`${path} does not hold an encryption key (44 characters of base64)`);
  return key;
}

async function writePrivateFile(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: PRIVATE_FILE_MODE });
  await chmod(path, PRIVATE_FILE_MODE);
}

/**
 * Copies a folder's files into another, folders 0700 and files 0600. A file the service removes
 * while it is copied (a deleted contact's attachment) is skipped, not an error.
 */
async function copyTree(from: string, to: string): Promise<number> {
  await ensurePrivateDir(to);
  await chmod(to, PRIVATE_DIR_MODE);
  let copied = 0;
  let entries;
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  for (const entry of entries) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      copied += await copyTree(source, target);
    } else if (entry.isFile()) {
      try {
        await copyFile(source, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      await chmod(target, PRIVATE_FILE_MODE);
      copied += 1;
    }
  }
  return copied;
}

function isNonEmptyDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory() && readdirSync(path).length > 0;
}

function parse(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { force: { type: 'boolean' }, 'skip-files': { type: 'boolean' } },
  });
  if (positionals.length !== 1) throw new UsageError('name one backup file');
  return { file: resolve(positionals[0]!), force: values.force === true, skipFiles: values['skip-files'] === true };
}

function sqlitePath(config: Config, postgresMessage: string): string {
  if (!isSqliteUrl(config.databaseUrl)) throw new BackupRefusal(postgresMessage);
  return resolve(config.databaseUrl);
}

/** Opens and checks a copy before it is moved in place; the caller's checks run on what it found. */
function checkCopy(copy: string, named: string): CheckedDatabase {
  const db = openExisting(copy);
  try {
    return checkParleyDatabase(db, named);
  } finally {
    db.close();
  }
}

async function backup(args: string[]): Promise<unknown> {
  const { file, force, skipFiles } = parse(args);
  const config = readConfig();
  const database = sqlitePath(config, POSTGRES_BACKUP);
  if (file === database) throw new BackupRefusal('the backup file is the database itself');
  if (!existsSync(database)) throw new BackupRefusal(`there is no database at ${database}`);
  if (!existsSync(dirname(file))) throw new BackupRefusal(`the folder ${dirname(file)} does not exist`);
  const keyOut = `${file}.key`;
  const filesOut = `${file}.files`;
  if (!force) {
    for (const path of [file, keyOut, filesOut]) if (existsSync(path)) throw new BackupRefusal(`${path} exists; add --force to replace the earlier backup`);
  }
  const envKey = environmentKey();
  const key = envKey ?? readKeyFile(keyFileOf(config.dataDir));

  const source = openExisting(database);
  let checked!: CheckedDatabase;
  try {
    // A clear refusal before copying anything when DATABASE_URL is some other SQLite file.
    if (!hasMigrationsTable(source)) {
      throw new BackupRefusal(`${database} is not a Parley database: it has no schema_migrations table`);
    }
    await copyDatabase(source, file, async (copy) => {
      checked = checkCopy(copy, file);
    });
  } finally {
    source.close();
  }

  const notes: string[] = [];
  let keyFile: string | null = null;
  await rm(keyOut, { force: true });
  if (envKey) {
    notes.push('the encryption key is ENCRYPTION_KEY and was not written: keep it with the backup, a restore needs the same value');
  } else if (key) {
    await writePrivateFile(keyOut, `${key}\n`);
    keyFile = keyOut;
  } else {
    notes.push(`no encryption key was found (${keyFileOf(config.dataDir)}): the database's encrypted secrets cannot be read without it`);
  }

  let filesCopied: number | null = null;
  await rm(filesOut, { recursive: true, force: true });
  if (skipFiles) notes.push(`the stored files were not copied (--skip-files): copy ${config.filesDir} yourself after the database`);
  else filesCopied = await copyTree(config.filesDir, filesOut);

  return {
    database: file,
    migrations: checked.migrations.length,
    integrity: 'ok',
    key: envKey ? 'ENCRYPTION_KEY' : keyFile ? 'file' : 'none',
    key_file: keyFile,
    files: filesCopied === null ? null : filesOut,
    files_copied: filesCopied,
    notes,
  };
}

async function restore(args: string[]): Promise<unknown> {
  const { file, force } = parse(args);
  const config = readConfig();
  const database = sqlitePath(config, POSTGRES_RESTORE);
  if (file === database) throw new BackupRefusal('the backup file is the database itself');
  if (!existsSync(file) || !statSync(file).isFile()) throw new BackupRefusal(`there is no backup file ${file}`);
  const running = () => existsSync(database) && inUse(database);
  if (running()) throw new BackupRefusal(`${database} is open in another process (a running server?): stop it before restoring`);
  if (existsSync(database) && !force) throw new BackupRefusal(`${database} exists; add --force to replace it with the backup`);

  const envKey = environmentKey();
  const backupKey = readKeyFile(`${file}.key`);
  const keyFile = keyFileOf(config.dataDir);
  const currentKey = envKey ? null : readKeyFile(keyFile);
  if (envKey && backupKey && envKey !== backupKey) {
    throw new BackupRefusal(`ENCRYPTION_KEY is not the key kept with the backup (${file}.key): set ENCRYPTION_KEY to that key, or unset it to use the file`);
  }
  const key = envKey ?? backupKey ?? currentKey;
  const writeKey = !envKey && backupKey !== null && backupKey !== currentKey;
  if (writeKey && currentKey !== null && !force)
    throw new BackupRefusal(`${keyFile} holds another key; add --force to replace it (the old one is kept beside it)`);

  const filesIn = `${file}.files`;
  const withFiles = existsSync(filesIn);
  if (withFiles && isNonEmptyDir(config.filesDir) && !force) {
    throw new BackupRefusal(`${config.filesDir} holds stored files; add --force to copy the backup's files over them`);
  }

  const source = openExisting(file);
  let checked!: CheckedDatabase;
  try {
    await copyDatabase(source, database, async (copy) => {
      checked = checkCopy(copy, file);
      if (checked.sampleSecret !== null) {
        if (key === null)
          throw new BackupRefusal(`the backup holds encrypted secrets and there is no key: put its key file at ${file}.key or set ENCRYPTION_KEY`);
        try {
          SecretBox.fromBase64(key).decrypt(checked.sampleSecret);
        } catch {
          throw new BackupRefusal(`the encryption key (${envKey ? 'ENCRYPTION_KEY' : backupKey ? `${file}.key` : keyFile}) does not open the backup's secrets`);
        }
      }
      // Checked again just before the move: the WAL beside the old database belongs to it and goes.
      if (running()) throw new BackupRefusal(`${database} is open in another process (a running server?): stop it before restoring`);
      await rm(`${database}-wal`, { force: true });
      await rm(`${database}-shm`, { force: true });
    });
  } finally {
    source.close();
  }

  if (writeKey) {
    if (currentKey !== null) await rename(keyFile, `${keyFile}.replaced-${Date.now()}`);
    await ensurePrivateDir(config.dataDir);
    await writePrivateFile(keyFile, `${backupKey}\n`);
  }
  const filesCopied = withFiles ? await copyTree(filesIn, config.filesDir) : null;
  return {
    database,
    migrations: checked.migrations.length,
    integrity: 'ok',
    key: envKey ? 'ENCRYPTION_KEY' : writeKey ? 'written' : key !== null ? 'unchanged' : 'none',
    key_file: envKey ? null : keyFile,
    files: withFiles ? config.filesDir : null,
    files_copied: filesCopied,
  };
}

/** Runs `backup` or `restore`; prints JSON on success, a one-line reason on refusal (exit 1) or bad usage (exit 2). */
export async function runBackupCommand(command: 'backup' | 'restore', args: string[], usage: string): Promise<number> {
  try {
    const result = command === 'backup' ? await backup(args) : await restore(args);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof BackupRefusal) {
      process.stderr.write(`parley: ${error.message}\n`);
      return 1;
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`parley: ${(error as Error).message}\n\n${usage}\n`);
      return 2;
    }
    throw error;
  }
}
