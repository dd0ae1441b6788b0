import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from '../config.js';
import { PRIVATE_FILE_MODE, ensurePrivateDir } from '../lib/private-files.js';
import type { Store } from '../store/store.js';

/** The service_meta row naming the marker file of the installation's files folder. */
export const FILES_MARKER = 'files_dir_marker';

export function markerFileName(id: string): string {
  return `.parley-files-${id}`;
}

/** Whether the marker is in `dir` with its id; a folder that cannot be read does not have it. */
async function hasMarker(dir: string, id: string): Promise<boolean> {
  try {
    return (await readFile(join(dir, markerFileName(id)), 'utf8')).trim() === id;
  } catch {
    return false;
  }
}

function refusal(config: Config, id: string): ConfigError {
  return new ConfigError(
    `Invalid configuration: FILES_DIR (${config.filesDir}) is not the folder of the stored files of this database: ` +
      `the marker file ${markerFileName(id)}, written there by the first instance to start on it, is not found. ` +
      'Every instance on one database needs the same FILES_DIR, one folder they all see (a shared mount); ' +
      'a folder that was moved keeps its files only when moved whole, marker included',
  );
}

/**
 * Whether FILES_DIR is the installation's one files folder: the first instance to start on a
 * database writes a marker file there under a random id and records the id in the store; every
 * instance after it must find that file in its own FILES_DIR, or it would keep files the others
 * cannot serve (and serve none of theirs). Two first starts at once agree on the id recorded
 * first; the other removes its own marker and is checked against that one.
 */
export async function checkFilesDir(store: Store, config: Config): Promise<{ record(now: number): Promise<void> }> {
  const id = await store.serviceMeta.find(FILES_MARKER);
  if (id !== null) {
    if (!(await hasMarker(config.filesDir, id))) throw refusal(config, id);
    return { record: () => Promise.resolve() };
  }
  return {
    async record(now) {
      const mine = randomBytes(12).toString('hex');
      const file = join(config.filesDir, markerFileName(mine));
      try {
        await ensurePrivateDir(config.filesDir);
        await writeFile(file, `${mine}\n`, { mode: PRIVATE_FILE_MODE });
      } catch (error) {
        throw new ConfigError(`Invalid configuration: FILES_DIR (${config.filesDir}) cannot be written: ${(error as Error).message}`);
      }
      const standing = await store.serviceMeta.record(FILES_MARKER, mine, now);
      if (standing === mine) return;
      await rm(file, { force: true });
      if (!(await hasMarker(config.filesDir, standing))) throw refusal(config, standing);
    },
  };
}
