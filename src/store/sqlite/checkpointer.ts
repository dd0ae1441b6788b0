import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * WAL checkpoints off the event loop. A checkpoint copies the WAL into the database file and
 * fsyncs it; run by the writing connection (SQLite's auto-checkpoint) it stalls every request
 * for milliseconds. Here a worker thread with its own connection runs PASSIVE checkpoints
 * (which never block the writer), and the main connection's auto-checkpoint is off while the
 * worker lives.
 *
 * Under steady writes a passive checkpoint never catches up with the end of the WAL, and SQLite
 * starts the WAL over only once it has; so when the WAL passes `maxFrames` the worker runs a
 * RESTART checkpoint, which holds the writer back for the short tail the passive one left. The
 * file is then written again from its start, over blocks the file system has already allocated
 * (a TRUNCATE checkpoint would make every later append allocate again, which measured about 10%
 * slower). `journal_size_limit` trims a WAL that grew beyond that size once the writes pause.
 * If the worker fails, auto-checkpointing comes back, so the WAL cannot grow without bound.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r && r.log > workerData.maxFrames) db.pragma('wal_checkpoint(RESTART)');
  } catch (error) { parentPort.postMessage({ error: String(error) }); }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'stop') { clearInterval(timer); try { db.close(); } catch {} parentPort.close(); }
});
`;

export class Checkpointer {
  private worker: Worker | null;

  constructor(
    private readonly connection: BetterSqlite3.Database,
    path: string,
    driverPath: string,
    intervalMs = 100,
    maxFrames = 32_768,
  ) {
    const restoreAuto = () => {
      if (this.connection.open) this.connection.pragma('wal_autocheckpoint = 1000');
      this.worker = null;
    };
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver: driverPath, intervalMs, maxFrames } });
    this.worker.on('error', restoreAuto);
    this.worker.on('exit', () => {
      if (this.worker) restoreAuto();
    });
    this.worker.unref();
    connection.pragma('wal_autocheckpoint = 0');
    connection.pragma(`journal_size_limit = ${maxFrames * 4096 * 2}`);
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    // Held (ref) while stopping, or a process with nothing else to do would exit mid-close.
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
    await worker.terminate();
    if (this.connection.open) this.connection.pragma('wal_autocheckpoint = 1000');
  }
}
