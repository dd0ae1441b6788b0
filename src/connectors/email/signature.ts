import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { SignatureBinding } from '../connector.js';
import { FUTURE_TOLERANCE_MS } from './options.js';

/**
 * The provider signs inside the body: hex HMAC-SHA256(webhook signing key, timestamp + token),
 * with a 50-character random token. A signature proves the timestamp and token only, so:
 * - a timestamp older than the allowed age (the provider retries the same body for about 8
 *   hours, so hours, not seconds) or well in the future is refused;
 * - the body is bound to its token: the check answers a binding that the service claims in the
 *   store (every instance, across restarts) for as long as the timestamp is accepted. The same
 *   body again is the provider's retry (accepted; each message and event is stored once); another
 *   body under a used token is a replay of the signature over forged content, refused.
 */
export interface SignedFields {
  timestamp: string | undefined;
  token: string | undefined;
  signature: string | undefined;
}

export type SignatureCheck = { ok: true; binding: SignatureBinding } | { ok: false; reason: string };

export function signatureOf(key: string, timestamp: string, token: string): string {
  return createHmac('sha256', key)
    .update(timestamp + token)
    .digest('hex');
}

export class SignatureVerifier {
  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number,
  ) {}

  /** `bodyDigest`: hex SHA-256 of the raw body the fields came in. */
  verify(key: string | undefined, fields: SignedFields, bodyDigest: string): SignatureCheck {
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
    // The key is part of the name: the same token under another account's key is another signature.
    const name = createHash('sha256').update(`mailprovider\0${key}\0${token}`).digest('hex');
    return { ok: true, binding: { key: `email:${name}`, bodyDigest, expiresAt: at + this.maxAgeMs } };
  }
}

export function digestOf(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}
