import { sha256Hex } from '../../lib/crypto.js';

/** Entries kept per kind (known tokens, unknown tokens) before the oldest make room. */
export const AUTH_CACHE_ENTRIES = 10_000;

function put<E>(map: Map<string, E>, key: string, entry: E, max: number): void {
  map.delete(key);
  // Insertion order is age: the oldest entry goes first, not the whole cache.
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, entry);
}

/**
 * Token lookups reused for a while in one process. Known tokens are kept by their text, so a hit
 * costs no hash; unknown ones by their SHA-256, so a client sending many long made-up tokens pins
 * 64 characters each, not the token. Both kinds are bounded.
 */
export class AuthCache<E extends { account: unknown }> {
  private readonly known = new Map<string, E>();
  private readonly unknown = new Map<string, E>();

  constructor(private readonly maxEntries = AUTH_CACHE_ENTRIES) {}

  get(token: string): E | undefined {
    return this.known.get(token) ?? (this.unknown.size > 0 ? this.unknown.get(sha256Hex(token)) : undefined);
  }

  set(token: string, entry: E): void {
    if (entry.account === null) put(this.unknown, sha256Hex(token), entry, this.maxEntries);
    else put(this.known, token, entry, this.maxEntries);
  }

  clear(): void {
    this.known.clear();
    this.unknown.clear();
  }

  get size(): number {
    return this.known.size + this.unknown.size;
  }

  /** Characters held in keys: the memory the cache pins for what clients sent. */
  get keyChars(): number {
    let total = 0;
    for (const key of this.known.keys()) total += key.length;
    for (const key of this.unknown.keys()) total += key.length;
    return total;
  }
}
