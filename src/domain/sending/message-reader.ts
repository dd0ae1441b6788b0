import type { SendingMessage } from '../../store/repos/messages.js';

type ReadMany = (keys: readonly { accountId: number; id: number }[]) => Promise<(SendingMessage | undefined)[]>;

interface Waiting {
  accountId: number;
  id: number;
  resolve: (message: SendingMessage | undefined) => void;
  reject: (error: unknown) => void;
}

interface ReadAhead {
  accountId: number;
  /** The read under way or done; null when it failed (the job reads for itself). */
  message: Promise<SendingMessage | undefined | null>;
  at: number;
}

/** Messages per read at most. */
const MAX_BATCH = 500;
/**
 * How long a message read ahead for a claim is used rather than read again: a job waits that
 * long at most for a running slot at full speed, and a message deleted meanwhile must not be sent.
 */
const READ_AHEAD_MS = 250;
/** Messages kept read ahead at most (jobs claimed and given back unrun leave theirs behind). */
const MAX_READ_AHEAD = 10_000;

/**
 * Reads the messages of send jobs: all the messages of a claim in one query started as the claim
 * comes back (`readAhead`, not waited for by the claim), and the reads asked in the same turn
 * otherwise together, so a worker makes a query per claim rather than a query (and a statement
 * to build) per job.
 */
export class SendingMessageReader {
  private waiting: Waiting[] = [];
  private readonly ahead = new Map<number, ReadAhead>();

  constructor(
    private readonly readMany: ReadMany,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Starts reading the messages of the jobs a claim brought, for `read` to take; settles when read (or failed). */
  readAhead(keys: readonly { accountId: number; id: number }[]): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    const all = this.readMany(keys);
    if (this.ahead.size + keys.length > MAX_READ_AHEAD) this.ahead.clear();
    const at = this.now();
    keys.forEach((key, i) => {
      const message = all.then(
        (found) => found[i],
        () => null,
      );
      this.ahead.set(key.id, { accountId: key.accountId, message, at });
    });
    return all.then(() => undefined);
  }

  async read(accountId: number, id: number): Promise<SendingMessage | undefined> {
    const early = this.ahead.get(id);
    if (early) {
      this.ahead.delete(id);
      if (early.accountId === accountId && this.now() - early.at <= READ_AHEAD_MS) {
        const message = await early.message;
        if (message !== null) return message;
      }
    }
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
