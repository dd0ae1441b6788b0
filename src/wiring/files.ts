import type { Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import type { Store } from '../store/store.js';
import { LocalFileStore } from '../files/file-store.js';
import { StoredFiles } from '../files/stored-files.js';

export interface FilesWiring {
  /** Stored files: received attachments, profile pictures, web chat uploads ({base_url}/files/...). */
  storedFiles: StoredFiles;
  /** Removes stored bytes after the commit that deleted their rows (accounts, channels, contacts). */
  removeFiles: (storageKeys: readonly string[]) => Promise<void>;
}

/** The file store under FILES_DIR, and the stored files on it. */
export function wireFiles(config: Config, store: Store, clock: Clock): FilesWiring {
  const files = new LocalFileStore(config.filesDir);
  return {
    storedFiles: new StoredFiles({ store, files, clock, baseUrl: config.publicUrl }),
    removeFiles: (keys) => files.remove(keys),
  };
}
