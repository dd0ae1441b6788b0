import type { Readable } from 'node:stream';
import type { Store } from '../store/store.js';
import type { FileRow } from '../store/repos/files.js';
import type { Clock } from '../lib/clock.js';
import { randomAlphanumeric } from '../lib/crypto.js';
import type { FileStore } from './file-store.js';

export interface NewFile {
  accountId: number;
  channelId: number;
  contactId: number | null;
  name: string;
  mimeType: string;
  bytes: Uint8Array;
  /** When the file may be removed unless something keeps it (web chat uploads); absent: kept. */
  expiresAt?: number;
}

export interface StoredFile {
  id: string;
  name: string;
  url: string;
}

/** 32 alphanumeric characters: about 190 bits, so a file URL cannot be guessed. */
const ID_LENGTH = 32;
const ID_FORMAT = /^[A-Za-z0-9]{16,64}$/;
const NAME_MAX = 200;
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

/** A file name safe in a URL path segment and a header: no folders, no control characters. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim()
    .slice(0, NAME_MAX);
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean;
}

export function safeMimeType(type: string): string {
  return MIME.test(type) ? type.toLowerCase() : 'application/octet-stream';
}

/**
 * Files the service keeps (attachments a user sent, uploads from the web chat): the row and the
 * bytes, and the public URL `{base_url}/files/<unguessable id>/<name>`, served without a token.
 */
export class StoredFiles {
  constructor(private readonly deps: { store: Store; files: FileStore; clock: Clock; baseUrl: string }) {}

  urlOf(id: string, name: string): string {
    return `${this.deps.baseUrl}/files/${id}/${encodeURIComponent(name)}`;
  }

  /** Bytes first, then the row: a failure leaves at worst an unreferenced file, never a row without bytes. */
  async save(input: NewFile): Promise<StoredFile> {
    return this.saveWith(input, (key) => this.deps.files.put(key, input.bytes).then(() => input.bytes.byteLength));
  }

  /** The same from a stream (a file staged on disk), never whole in memory. */
  async saveStream(input: Omit<NewFile, 'bytes'> & { stream: Readable }): Promise<StoredFile> {
    return this.saveWith(input, (key) => this.deps.files.putStream(key, input.stream));
  }

  private async saveWith(input: Omit<NewFile, 'bytes'>, write: (key: string) => Promise<number>): Promise<StoredFile> {
    const id = randomAlphanumeric(ID_LENGTH);
    const name = safeFileName(input.name);
    const key = `${id.slice(0, 2)}/${id}`;
    const size = await write(key);
    const row: FileRow = {
      id,
      account_id: input.accountId,
      channel_id: input.channelId,
      contact_id: input.contactId,
      name,
      mime_type: safeMimeType(input.mimeType),
      size,
      storage_key: key,
      created_at: this.deps.clock.now(),
      expires_at: input.expiresAt ?? null,
    };
    try {
      await this.deps.store.files.insert(row);
    } catch (error) {
      await this.deps.files.remove([key]).catch(() => undefined);
      throw error;
    }
    return { id, name, url: this.urlOf(id, name) };
  }

  /** The id of a file this service stores, from its public URL; null for any other URL. */
  idFromUrl(url: string): string | null {
    const prefix = `${this.deps.baseUrl}/files/`;
    if (!url.startsWith(prefix)) return null;
    const id = url.slice(prefix.length).split('/')[0] ?? '';
    return ID_FORMAT.test(id) ? id : null;
  }

  /**
   * Removes files whose time ran out, rows first (so each is claimed by one sweep, and none is
   * served without its bytes), then their bytes; answers how many.
   */
  async removeExpired(now: number, batch = 500): Promise<number> {
    let removed = 0;
    for (;;) {
      const keys = await this.deps.store.files.deleteExpired(now, batch);
      await this.deps.files.remove(keys);
      removed += keys.length;
      if (keys.length < batch) return removed;
    }
  }

  async find(id: string): Promise<FileRow | undefined> {
    if (!ID_FORMAT.test(id)) return undefined;
    return this.deps.store.files.findPublic(id);
  }

  open(row: FileRow) {
    return this.deps.files.open(row.storage_key);
  }

  remove(keys: readonly string[]): Promise<void> {
    return this.deps.files.remove(keys);
  }
}
