import { createHash } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { PlatformResult } from './result.js';

/** A credential the platform issued for a while (an OAuth access token). */
export interface IssuedCredential {
  value: string;
  /** How long the platform says it is good for (ms from now). */
  expiresInMs: number;
}

export interface CredentialCacheOptions {
  clock: Clock;
  /** A credential is renewed this long before it expires, so a call never goes out with one about to lapse. */
  renewBeforeMs?: number;
  /** Most credentials kept; the least recently issued is dropped beyond it. */
  maxEntries?: number;
}

/**
 * Short-lived platform credentials kept in memory, per channel: OAuth access tokens exchanged
 * from a service-account key (rbm), app tokens. Each process keeps its own (a token is cheap to
 * obtain again and is never written to the store). Concurrent calls for the same key share one
 * request to the platform; a failure is not kept, so the next call asks again; a credential the
 * platform refused (401) is dropped with `forget`.
 *
 * Key by the channel and the secret the credential comes from (`credentialKey`), so a channel
 * whose key was replaced never reuses a token of the old one.
 */
export class CredentialCache {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private readonly pending = new Map<string, Promise<PlatformResult<string>>>();
  private readonly renewBeforeMs: number;
  private readonly maxEntries: number;

  constructor(private readonly options: CredentialCacheOptions) {
    this.renewBeforeMs = options.renewBeforeMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** The cached credential while it is good, else one obtained now (once for all concurrent callers). */
  async get(key: string, obtain: () => Promise<PlatformResult<IssuedCredential>>): Promise<PlatformResult<string>> {
    const now = this.options.clock.now();
    const entry = this.entries.get(key);
    if (entry && now < entry.expiresAt - this.renewBeforeMs) return { ok: true, value: entry.value };
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const request = this.obtain(key, obtain).finally(() => this.pending.delete(key));
    this.pending.set(key, request);
    return request;
  }

  /** Drops a credential the platform refused, so the next call obtains a new one. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private async obtain(key: string, obtain: () => Promise<PlatformResult<IssuedCredential>>): Promise<PlatformResult<string>> {
    const issued = await obtain();
    if (!issued.ok) {
      this.entries.delete(key);
      return issued;
    }
    // Time of issue is read after the platform answered: the lifetime counts from its answer.
    const expiresAt = this.options.clock.now() + Math.max(0, issued.value.expiresInMs);
    this.entries.delete(key);
    this.entries.set(key, { value: issued.value.value, expiresAt });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return { ok: true, value: issued.value.value };
  }
}

/** A cache key for a channel's credential: the channel id and a digest of the secret it is obtained with (never the secret itself). */
export function credentialKey(channelId: string, secret: string): string {
  return `${channelId}:${createHash('sha256').update(secret).digest('base64url').slice(0, 16)}`;
}
