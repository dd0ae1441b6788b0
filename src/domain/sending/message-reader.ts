import type { SendingMessage } from '../../store/repos/messages.js';

interface Waiting {
  accountId: number;
  id: number;
  resolve: (message: SendingMessage | undefined) => void;
  reject: (error: unknown) => void;
}

/** Messages per read at most. */
const MAX_BATCH = 500;

/**
 * Reads the messages of send jobs, one query for all the reads asked in the same turn: a claim
 * starts its jobs in one synchronous pass, so their reads go out together instead of one
 * round trip (and one statement to build) per job.
 */
export class SendingMessageReader {
  private waiting: Waiting[] = [];

  constructor(private readonly readMany: (keys: readonly { accountId: number; id: number }[]) => Promise<(SendingMessage | undefined)[]>) {}

  read(accountId: number, id: number): Promise<SendingMessage | undefined> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) queueMicrotask(() => this.flush());
      this.waiting.push({ accountId, id, resolve, reject });
    });
  }

  private flush(): void {
    const all = this.waiting;
    this.waiting = [];
    for (let at = 0; at < all.length; at += MAX_BATCH) {
      const batch = all.slice(at, at + MAX_BATCH);
      this.readMany(batch).then(
        (messages) => batch.forEach((w, i) => w.resolve(messages[i])),
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      );
    }
  }
}
