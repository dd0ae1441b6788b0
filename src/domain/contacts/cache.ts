import type { ContactKey, ContactRow } from '../../store/repos/contacts.js';

interface Entry {
  row: ContactRow;
  /** False while the unit that creates the contact has not committed yet. */
  committed: boolean;
  expires: number;
}

/**
 * Contacts by their address in a channel, per process, so a send to a known contact reads
 * nothing. A contact being created is visible at once, so concurrent sends to one new number
 * share one contact. Entries live `ttlMs` (other instances may change contacts) and are dropped
 * when this process deletes the contact or its channel changes; a send that finds its contact
 * gone (deleted elsewhere) drops the entry and looks again.
 */
export class ContactCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 100_000,
  ) {}

  static key(channelId: number | string, key: ContactKey, value: string | number): string {
    return `${channelId}\u0000${key}\u0000${value}`;
  }

  get(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, row: ContactRow, committed: boolean): void {
    if (this.ttlMs <= 0 && committed) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    // A pending entry must outlive its write even with caching off, so concurrent sends share it.
    const life = committed ? this.ttlMs : Math.max(this.ttlMs, 60_000);
    this.entries.set(key, { row, committed, expires: this.now() + life });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  forgetContact(contactId: number): void {
    for (const [key, entry] of this.entries) if (entry.row.id === contactId) this.entries.delete(key);
  }

  forgetChannel(channelId: number): void {
    for (const [key, entry] of this.entries) if (entry.row.channel_id === channelId) this.entries.delete(key);
  }
}
