import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { CLOCK_TOLERANCE_MS, JWT_ALGORITHMS } from './options.js';

/**
 * The provider's signed calls: a JWT in a header, HMAC-signed with the channel's signing key,
 * whose claims bind the call: `iss`, `nbf` and `exp` (a minute apart), `url_hash` (hex SHA-256
 * of the full URL called, query included, exactly as received) and `payload_hash` (hex SHA-256
 * of the raw body, present exactly when there is a body). The algorithm is one of the HMAC
 * family (HS256, HS384, HS512; never `none`, never another); times are checked with the provider
 * SDK's 5 s tolerance. The legacy HMAC header is not read: the provider's SDKs disagree on its
 * query encoding.
 */
type Claims = Record<string, unknown>;

export interface SignedCall {
  token: string | undefined;
  key: string | undefined;
  issuer: string;
  url: string;
  rawBody: Buffer;
  nowMs: number;
}

export type SignatureCheck = { ok: true; claims: Claims } | { ok: false; reason: string };

const HASHES: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };
const SEGMENT = /^[A-Za-z0-9_-]+$/;

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

function decodeJson(segment: string): Claims | null {
  try {
    const value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Claims) : null;
  } catch {
    return null;
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function verifySignedCall(call: SignedCall): SignatureCheck {
  if (!call.key) return { ok: false, reason: 'the channel has no signing key' };
  if (!call.token) return { ok: false, reason: 'no signature header' };
  const parts = call.token.trim().split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return { ok: false, reason: 'not a signed JWT' };
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJson(h);
  const alg = header?.alg;
  if (typeof alg !== 'string' || !(JWT_ALGORITHMS as readonly string[]).includes(alg)) return { ok: false, reason: `algorithm ${String(alg)} is not accepted` };
  const expected = createHmac(HASHES[alg]!, call.key).update(`${h}.${p}`).digest();
  const given = Buffer.from(s, 'base64url');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'bad signature' };

  const claims = decodeJson(p);
  if (!claims) return { ok: false, reason: 'unreadable claims' };
  if (claims.iss !== call.issuer) return { ok: false, reason: 'wrong issuer' };
  const now = call.nowMs / 1000;
  const tolerance = CLOCK_TOLERANCE_MS / 1000;
  if (typeof claims.exp !== 'number' || now >= claims.exp + tolerance) return { ok: false, reason: 'expired' };
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || now < claims.nbf - tolerance)) return { ok: false, reason: 'not yet valid' };
  if (typeof claims.url_hash !== 'string' || !sameText(claims.url_hash, sha256Hex(call.url))) return { ok: false, reason: 'the URL does not match' };
  if (call.rawBody.length > 0) {
    if (typeof claims.payload_hash !== 'string' || !sameText(claims.payload_hash, sha256Hex(call.rawBody)))
      return { ok: false, reason: 'the body does not match' };
  } else if (claims.payload_hash !== undefined) {
    return { ok: false, reason: 'a body hash for an empty body' };
  }
  return { ok: true, claims };
}
