import { createHmac, timingSafeEqual } from 'node:crypto';

// Independent HS256 JWT check for the tests (not shared with the stand-ins).

export interface VerifiedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

export function verifyHs256(token: string, key: string): VerifiedJwt | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [h, p, s] = parts as [string, string, string];
  const expected = Buffer.from(createHmac('sha256', key).update(`${h}.${p}`).digest());
  const given = Buffer.from(s, 'base64url');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
  if (header.alg !== 'HS256') return null;
  return { header, claims: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown> };
}
