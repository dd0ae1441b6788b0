import type { ChatContent } from './client.js';

/** A message the visitor wrote that the server has not acknowledged yet. */
export interface OutboxItem {
  /** Local key (never sent). */
  key: string;
  content: ChatContent;
  /** When it was written (ms since the epoch), shown as its time. */
  queuedAt: number;
  /**
   * Set just before each emit: the newest message id the page knew then. An attempt whose
   * answer was lost (connection gone, page reloaded) is looked up in the history among newer
   * messages before it is sent again, so it is stored once.
   */
  attempt?: { after: string | null };
  /** The server refused it (an error acknowledgement); sent again only when the visitor asks. */
  failed?: { code: number; message: string };
}

const VERSION = 1;
/** Bounds what one visitor can pile up in the site's storage. */
const MAX_ITEMS = 200;

function isItem(value: unknown): value is OutboxItem {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<OutboxItem>;
  return (
    typeof v.key === 'string' && typeof v.queuedAt === 'number' && typeof v.content === 'object' && v.content !== null && typeof v.content.type === 'string'
  );
}

/** A local key for a new item. */
export function newKey(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * The visitor's unsent messages, in the order written. They are kept in the browser's storage
 * (one list per channel and visitor, next to the session id), so they survive a reload and are
 * seen by every tab of the site; without storage they last as long as the page.
 * Every read goes to storage, as another tab may have sent or added items since.
 */
export class Outbox {
  private memory: OutboxItem[] = [];
  /** Set when storage refused a write: from then on the page's copy is the list. */
  private inMemory: boolean;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly storage: Storage | null,
    readonly storageKey: string,
  ) {
    this.inMemory = storage === null;
    if (storage && typeof window !== 'undefined') {
      // Another tab changed the list.
      window.addEventListener('storage', (e) => {
        if (e.key === storageKey) this.notify();
      });
    }
  }

  list(): OutboxItem[] {
    if (!this.storage || this.inMemory) return this.memory.slice();
    try {
      const raw = this.storage.getItem(this.storageKey);
      if (raw === null) return [];
      const parsed = JSON.parse(raw) as { v?: unknown; items?: unknown };
      if (parsed.v !== VERSION || !Array.isArray(parsed.items)) return [];
      return parsed.items.filter(isItem);
    } catch {
      return this.memory.slice();
    }
  }

  get size(): number {
    return this.list().length;
  }

  /** Items to send, in order (refused ones wait for the visitor). */
  pending(): OutboxItem[] {
    return this.list().filter((i) => !i.failed);
  }

  add(content: ChatContent, key = newKey()): OutboxItem {
    const item: OutboxItem = { key, content, queuedAt: Date.now() };
    this.write([...this.list(), item].slice(-MAX_ITEMS));
    return item;
  }

  update(key: string, change: (item: OutboxItem) => OutboxItem): void {
    this.write(this.list().map((i) => (i.key === key ? change(i) : i)));
  }

  /** A refused item, asked to be sent again: it goes to the end, after what was sent meanwhile. */
  retry(key: string): void {
    const items = this.list();
    const item = items.find((i) => i.key === key);
    if (!item) return;
    const { failed: _failed, attempt: _attempt, ...again } = item;
    this.write([...items.filter((i) => i.key !== key), again]);
  }

  remove(key: string): void {
    this.write(this.list().filter((i) => i.key !== key));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private write(items: OutboxItem[]): void {
    this.memory = items;
    if (this.storage && !this.inMemory) {
      try {
        if (items.length === 0) this.storage.removeItem(this.storageKey);
        else this.storage.setItem(this.storageKey, JSON.stringify({ v: VERSION, items }));
      } catch {
        // Storage full or blocked: the list lives in the page from now on.
        this.inMemory = true;
      }
    }
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
