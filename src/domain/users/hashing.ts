import { ApiError } from '../../lib/errors.js';

/** scrypt runs at once per instance: the thread pool it shares with file reads and DNS keeps free threads. */
export const HASHING_CONCURRENCY = 2;
/** Password checks waiting for a turn; one more is refused rather than queued without end. */
export const HASHING_QUEUE = 32;

export const HASHING_BUSY = 'The server is busy checking passwords. Try again in a moment.';

/** Refused: every turn taken and the queue full (503 with Retry-After). */
export class HashingBusy extends ApiError {
  readonly retryAfterSeconds = 1;
  constructor() {
    super('unavailable', [{ message: HASHING_BUSY }]);
  }
}

/**
 * The bound on password hashing: at most `concurrency` scrypt calls at once and `queueSize`
 * waiting, in arrival order. Every hash and check of the administration's passwords goes through
 * it, so sign-in loops cannot fill the thread pool the whole server shares.
 */
export class PasswordWork {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency = HASHING_CONCURRENCY,
    private readonly queueSize = HASHING_QUEUE,
  ) {}

  /** Runs `work` in its turn; throws HashingBusy at once when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrency) {
      if (this.waiting.length >= this.queueSize) throw new HashingBusy();
      // A finished call hands its turn straight to the first waiter (active stays counted).
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** Calls running and waiting, for tests and health. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }
}
