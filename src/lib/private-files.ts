import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * What the service writes for itself (the database, the generated key, stored files) is readable
 * by the owner only. The mode is set with chmod after creating, because the mode given to
 * mkdir/open is reduced by the process umask; things that already exist are left as they are.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The folders from `dir` up to `first` (the outermost one mkdir made). */
function created(dir: string, first: string): string[] {
  const out: string[] = [];
  const top = resolve(first);
  for (let d = resolve(dir); ; d = dirname(d)) {
    out.push(d);
    if (d === top || dirname(d) === d) return out;
  }
}

/** Makes a folder and its missing parents, each 0700; an existing folder is left alone. */
export function ensurePrivateDirSync(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first !== undefined) for (const d of created(dir, first)) chmodSync(d, PRIVATE_DIR_MODE);
}

export async function ensurePrivateDir(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first !== undefined) for (const d of created(dir, first)) await chmod(d, PRIVATE_DIR_MODE);
}

/** Creates an empty file 0600 when there is none (before a library opens it with its own mode). */
export function ensurePrivateFileSync(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  closeSync(fd);
  chmodSync(path, PRIVATE_FILE_MODE);
}
