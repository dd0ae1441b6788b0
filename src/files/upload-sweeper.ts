import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { StoredFiles } from './stored-files.js';

/**
 * Removes web chat uploads that no message named in time (their rows carry `expires_at`), every
 * `intervalMs`. Any number of instances may run it at once: each row is deleted by one of them.
 */
export class UploadSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: { files: StoredFiles; clock: Clock; intervalMs: number; logger: Logger }) {}

  /** One pass; answers how many files were removed. */
  sweep(): Promise<number> {
    const pass = this.running.then(() => this.deps.files.removeExpired(this.deps.clock.now()));
    this.running = pass.catch(() => undefined);
    return pass;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.sweep().then(
        (removed) => {
          if (removed > 0) this.deps.logger.info({ removed }, 'removed web chat uploads no message named');
        },
        (error: unknown) => this.deps.logger.error({ err: error }, 'upload sweep failed'),
      );
    }, this.deps.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
