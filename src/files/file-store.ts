import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { chmod, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PRIVATE_FILE_MODE, ensurePrivateDir } from '../lib/private-files.js';

/**
 * Where the bytes of stored files live. The rows (name, type, owner) are in the `files` table;
 * a storage key names the bytes. The local folder is the one backend today; an S3-compatible one
 * can implement the same interface for several instances without a shared disk.
 */
export interface FileStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Writes a stream's bytes under the key without holding them in memory; answers how many. Nothing is left under the key on failure. */
  putStream(key: string, source: Readable): Promise<number>;
  /** A stream of the bytes, or null when they are gone. */
  open(key: string): Promise<{ stream: ReadStream; size: number } | null>;
  remove(keys: readonly string[]): Promise<void>;
}

export class LocalFileStore implements FileStore {
  private readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  /** Keys are made by the service; a key that would leave the folder is refused all the same. */
  private pathOf(key: string): string {
    const path = resolve(join(this.root, key));
    if (!path.startsWith(this.root + sep)) throw new Error(`invalid storage key: ${key}`);
    return path;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    // Folders 0700 and files 0600: the files come from end users and are served by id only.
    await ensurePrivateDir(dirname(path));
    // Written aside and renamed, so a reader never sees half a file.
    const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temp, bytes, { mode: PRIVATE_FILE_MODE });
    await chmod(temp, PRIVATE_FILE_MODE);
    await rename(temp, path);
  }

  async putStream(key: string, source: Readable): Promise<number> {
    const path = this.pathOf(key);
    await ensurePrivateDir(dirname(path));
    const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
    let size = 0;
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
    });
    try {
      await pipeline(source, createWriteStream(temp, { mode: PRIVATE_FILE_MODE }));
      await chmod(temp, PRIVATE_FILE_MODE);
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return size;
  }

  async open(key: string): Promise<{ stream: ReadStream; size: number } | null> {
    const path = this.pathOf(key);
    try {
      const info = await stat(path);
      return { stream: createReadStream(path), size: info.size };
    } catch {
      return null;
    }
  }

  async remove(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => rm(this.pathOf(key), { force: true })));
  }
}
