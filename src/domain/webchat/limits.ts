import type { Clock } from '../../lib/clock.js';
import { TokenBuckets } from '../../lib/token-buckets.js';
import { ChatError } from './errors.js';

/** What one browser, one conversation and one channel may use of the web chat (docs/web-chat.md). */
export interface ChatLimitSettings {
  /** Connections open at once from one client address. */
  connectionsPerAddress: number;
  /** New sessions from one client address: a burst, then so many a minute. */
  sessionsBurst: number;
  sessionsPerMinute: number;
  /** Events of one session (contact) over all its connections: a burst, then so many a second. */
  eventsBurst: number;
  eventsPerSecond: number;
  /** Bytes uploaded in an hour by one session (contact), and from one client address. */
  uploadBytesPerSessionPerHour: number;
  uploadBytesPerAddressPerHour: number;
  /** Bytes of web chat uploads one channel may keep. */
  channelStorageBytes: number;
  /** How long an upload no message of its visitor names is kept. */
  unreferencedUploadTtlMs: number;
}

const HOUR = 3_600_000;

/** Seconds to wait, rounded up, for acknowledgements and rejections. */
export const retryAfterSeconds = (ms: number): number | undefined => (Number.isFinite(ms) ? Math.max(1, Math.ceil(ms / 1000)) : undefined);

/**
 * The counters behind the limits, kept in this process: with several instances each counts what
 * it serves (a browser's connections stay on one instance), except channel storage, which is
 * summed from the stored files. Client addresses arrive as keys (see lib/client-address.ts).
 */
export class ChatLimits {
  private readonly connections = new Map<string, number>();
  private readonly sessions: TokenBuckets;
  private readonly events: TokenBuckets;
  private readonly sessionBytes: TokenBuckets;
  private readonly addressBytes: TokenBuckets;

  constructor(
    readonly settings: ChatLimitSettings,
    clock: Clock,
  ) {
    const now = () => clock.now();
    this.sessions = new TokenBuckets(settings.sessionsBurst, settings.sessionsPerMinute, 60_000, now);
    this.events = new TokenBuckets(settings.eventsBurst, settings.eventsPerSecond, 1000, now);
    this.sessionBytes = new TokenBuckets(settings.uploadBytesPerSessionPerHour, settings.uploadBytesPerSessionPerHour, HOUR, now);
    this.addressBytes = new TokenBuckets(settings.uploadBytesPerAddressPerHour, settings.uploadBytesPerAddressPerHour, HOUR, now);
  }

  /** Takes a connection slot of the address; false when all are in use. */
  openConnection(address: string): boolean {
    const open = this.connections.get(address) ?? 0;
    if (open >= this.settings.connectionsPerAddress) return false;
    this.connections.set(address, open + 1);
    return true;
  }

  closeConnection(address: string): void {
    const open = (this.connections.get(address) ?? 0) - 1;
    if (open > 0) this.connections.set(address, open);
    else this.connections.delete(address);
  }

  /** A new session from the address: null when allowed, else the milliseconds to wait. */
  takeSession(address: string): number | null {
    return this.sessions.take(address) ? null : this.sessions.waitMs(address);
  }

  /** One event of a contact; false when its connections together sent too many lately. */
  takeEvent(contactId: string): boolean {
    return this.events.take(contactId);
  }

  /** Counts an upload against its contact's and its address's hourly bytes, or refuses it (429). */
  takeUploadBytes(contactId: string, address: string, bytes: number): void {
    if (!this.sessionBytes.take(contactId, bytes)) {
      throw tooMuch('this conversation', this.settings.uploadBytesPerSessionPerHour, this.sessionBytes.waitMs(contactId, bytes));
    }
    if (!this.addressBytes.take(address, bytes)) {
      this.sessionBytes.refund(contactId, bytes);
      throw tooMuch('your network', this.settings.uploadBytesPerAddressPerHour, this.addressBytes.waitMs(address, bytes));
    }
  }

  /** Gives the bytes back when the upload was not stored after all. */
  refundUploadBytes(contactId: string, address: string, bytes: number): void {
    this.sessionBytes.refund(contactId, bytes);
    this.addressBytes.refund(address, bytes);
  }
}

function tooMuch(from: string, perHour: number, waitMs: number): ChatError {
  const retryAfter = retryAfterSeconds(waitMs);
  const when = retryAfter === undefined ? 'This file is larger than that.' : `Try again in ${retryAfter} seconds.`;
  return new ChatError(429, `Uploads from ${from} are limited to ${perHour} bytes an hour. ${when}`, 'content_buffer', retryAfter);
}
