import type { Base } from './base.js';
import type { StoredFiles } from '../files/stored-files.js';
import { UploadSweeper } from '../files/upload-sweeper.js';
import { RetentionPurge, RetentionSweeper } from '../domain/retention/purge.js';

export interface Sweepers {
  /** Removes the web chat uploads no message named in time. */
  uploads: UploadSweeper;
  /** One retention pass: rows past their age deleted in small batches, one worker process at a time. */
  retention: RetentionPurge;
  /** The worker's periodic retention pass. */
  retentionSweeper: RetentionSweeper;
}

export function wireSweepers({ config, clock, store, logger }: Base, storedFiles: StoredFiles): Sweepers {
  const uploads = new UploadSweeper({ files: storedFiles, clock, intervalMs: config.chatUploadSweepMs, logger: logger.child({ worker: 'uploads' }) });
  const retention = new RetentionPurge({ store, files: storedFiles, clock, settings: config.retention, logger: logger.child({ worker: 'retention' }) });
  const retentionSweeper = new RetentionSweeper({ purge: retention, intervalMs: config.retention.intervalMs, logger: logger.child({ worker: 'retention' }) });
  return { uploads, retention, retentionSweeper };
}
