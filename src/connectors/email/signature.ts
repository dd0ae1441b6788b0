import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { FUTURE_TOLERANCE_MS } from './options.js';

/**
 * The provider signs inside the body: hex HMAC-SHA256(webhook signing key, timestamp + token),
 * with a 50-character random token. A signature proves the timestamp and token only, so:
 * - a timestamp older than the allowed age (the provider retries the same body for about 8
 *   hours, so hours, not seconds) or well in the future is refused;
 * - a token is remembered with the body it came with: the same body again is the provider's
 *   retry (accepted; the service stores each message and event once), another body under a
 *   used token is a replay of the signature over forged content, refused.
 * Tokens are remembered per process, for as long as their timestamp is accepted.
 */
export interface SignedFields {
  timestamp: string | undefined;
  token: string | undefined;
  signature: string | undefined;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** Tokens kept at most; the oldest are forgotten first (their timestamps are the first to expire anyway). */
const MAX_TOKENS = 200_000;

export function signatureOf(key: string, timestamp: string, token: string): string {
  return createHmac('sha256', key)
    .update(timestamp + token)
    .digest('hex');
}

export class SignatureVerifier {
  private readonly tokens = new Map<string, { body: string; until: number }>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number,
  ) {}

  verify(key: string | undefined, fields: SignedFields, body: Buffer): SignatureCheck {
    const { timestamp, token, signature } = fields;
    if (!key) return { ok: false, reason: 'the channel has no webhook signing key' };
    if (!timestamp || !token || !signature) return { ok: false, reason: 'timestamp, token or signature missing' };
    if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'timestamp is not a number of seconds' };
    const expected = Buffer.from(signatureOf(key, timestamp, token), 'utf8');
    const given = Buffer.from(signature.toLowerCase(), 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature does not match' };
    const at = Number(timestamp) * 1000;
    const now = this.now();
    if (at < now - this.maxAgeMs) return { ok: false, reason: 'timestamp too old' };
    if (at > now + FUTURE_TOLERANCE_MS) return { ok: false, reason: 'timestamp in the future' };
    const digest = createHash('sha256').update(body).digest('hex');
    this.forgetExpired(now);
    const seen = this.tokens.get(token);
    if (seen && seen.body !== digest) return { ok: false, reason: 'token used before with another body' };
    if (!seen) {
      if (this.tokens.size >= MAX_TOKENS) {
        const oldest = this.tokens.keys().next().value;
        if (oldest !== undefined) this.tokens.delete(oldest);
      }
      this.tokens.set(token, { body: digest, until: at + this.maxAgeMs });
    }
    return { ok: true };
  }

  private forgetExpired(now: number): void {
    // Insertion order is roughly timestamp order: stop at the first one still valid.
    for (const [token, entry] of this.tokens) {
      if (entry.until >= now) break;
      this.tokens.delete(token);
    }
  }
}
