import { ChatRequestError, type ChatClient, type ChatContent, type ChatMessage } from './client.js';
import type { Outbox, OutboxItem } from './outbox.js';

export interface OutboxSenderHooks {
  /** The newest message id the page shows (an attempt is looked for among newer ones). */
  newestId(): string | null;
  /** The server stored an item: show the stored message in its place. */
  stored(key: string, message: ChatMessage): void;
  /** The server refused an item (an error acknowledgement). */
  refused(key: string, error: ChatRequestError): void;
  /** Too many events from the conversation (429): the item is sent again by itself in `waitMs`. */
  slowedDown(key: string, waitMs: number): void;
}

/** A refused burst (429) is tried again by itself after this long, unless the server says when. */
const SLOW_DOWN_MS = 5000;
/** Waits the server asks for are capped, so a long one does not hold a page's messages for good. */
const SLOW_DOWN_MAX_MS = 60_000;
/** An attempt whose answer was lost is looked for in this many pages of history at most. */
const LOOKUP_PAGES = 3;
const LOOKUP_PAGE_SIZE = 50;

function idAfter(id: string, after: string | null): boolean {
  return after === null || Number(id) > Number(after);
}

function sameContent(a: ChatContent, b: ChatContent): boolean {
  return a.type === b.type && JSON.stringify(a.payload) === JSON.stringify(b.payload) && (a.quick_reply?.payload ?? null) === (b.quick_reply?.payload ?? null);
}

/** Runs `work` while no other tab of the site sends from the same outbox (where the browser can tell). */
function exclusive(name: string, work: () => Promise<void>): Promise<void> {
  const locks = typeof navigator !== 'undefined' ? (navigator as Navigator & { locks?: LockManager }).locks : undefined;
  return locks ? locks.request(name, () => work()).then(() => undefined) : work();
}

/**
 * Sends the outbox in order, one message at a time, whenever the connection is up. Each item is
 * marked with the newest known message id before it is sent; an item whose answer never came
 * (the connection dropped, the page was reloaded) is first looked for in the history, so that a
 * message the server did store is not sent twice.
 */
export class OutboxSender {
  private running = false;
  private again = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The item being sent now by this page. */
  inFlight: string | null = null;

  constructor(
    private readonly outbox: Outbox,
    private readonly client: ChatClient,
    private readonly hooks: OutboxSenderHooks,
  ) {}

  /** Sends what is pending; calls made while it runs make it look again when done. */
  async flush(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        await exclusive(`parley-chat-outbox:${this.outbox.storageKey}`, () => this.drain());
      } while (this.again && this.client.connected);
    } finally {
      this.running = false;
    }
  }

  private later(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), ms);
  }

  private async drain(): Promise<void> {
    while (this.client.connected) {
      const item = this.outbox.pending()[0];
      if (!item) return;
      // Whether the refusal below answered the send itself (rather than the lookup before it).
      let sending = false;
      try {
        if (item.attempt) {
          const found = await this.lookup(item);
          if (found) {
            this.outbox.remove(item.key);
            this.hooks.stored(item.key, found);
            continue;
          }
        }
        this.inFlight = item.key;
        sending = true;
        this.outbox.update(item.key, (i) => ({ ...i, attempt: { after: this.hooks.newestId() } }));
        const stored = await this.client.send(item.content);
        this.outbox.remove(item.key);
        this.hooks.stored(item.key, stored);
      } catch (error) {
        if (!(error instanceof ChatRequestError) || error.code === 0) {
          // No answer (connection lost, or too slow): the attempt is looked up before the next try.
          if (this.client.connected) this.later(SLOW_DOWN_MS);
          return;
        }
        if (error.code === 429) {
          // Too many events at once: not the message's fault; the order is kept. A refused send
          // stored nothing; a refused lookup still has to be made before the next send.
          if (sending) this.outbox.update(item.key, ({ attempt: _attempt, ...rest }) => rest);
          const wait = error.retryAfter === undefined ? SLOW_DOWN_MS : Math.min(Math.max(error.retryAfter * 1000, 250), SLOW_DOWN_MAX_MS);
          this.later(wait);
          this.hooks.slowedDown(item.key, wait);
          return;
        }
        this.outbox.update(item.key, ({ attempt: _attempt, ...rest }) => ({ ...rest, failed: { code: error.code, message: error.message } }));
        this.hooks.refused(item.key, error);
      } finally {
        this.inFlight = null;
      }
    }
  }

  /** The stored message of an attempt whose answer was lost, if the server stored it. */
  private async lookup(item: OutboxItem): Promise<ChatMessage | null> {
    const after = item.attempt?.after ?? null;
    let cursor: string | null = null;
    for (let page = 0; page < LOOKUP_PAGES; page++) {
      const answer = await this.client.listMessages(cursor, LOOKUP_PAGE_SIZE);
      // Oldest first, so that of two equal messages the earlier one is taken.
      const newer = answer.messages.filter((m) => idAfter(m.id, after)).reverse();
      const hit = newer.find((m) => m.direction === 'sent' && sameContent(m.content, item.content));
      if (hit) return hit;
      if (!answer.cursor.has_next || newer.length < answer.messages.length) return null;
      cursor = answer.cursor.next;
    }
    return null;
  }
}
