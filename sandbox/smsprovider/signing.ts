import { createHash, createHmac, randomUUID } from 'node:crypto';

// Webhook signatures: the current JWT scheme (HMAC: HS256 by default, HS384 and HS512 as the
// provider SDK's reference vectors also hold; claims iss, nbf, exp, jti, url_hash, payload_hash) and
// the deprecated HMAC scheme (timestamp + sorted query + SHA-256 of the body).

export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];
const HASH_OF: Record<JwtAlgorithm, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

export function signJwt(key: string, issuer: string, url: string, body: string, nowMs: number, alg: JwtAlgorithm = 'HS256'): string {
  const nbf = Math.floor(nowMs / 1000);
  const claims: Record<string, string | number> = {
    iss: issuer,
    nbf,
    exp: nbf + 60,
    jti: randomUUID(),
    url_hash: createHash('sha256').update(url).digest('hex'),
  };
  if (body.length > 0) claims.payload_hash = createHash('sha256').update(body).digest('hex');
  const head = b64url(JSON.stringify({ alg, typ: 'JWT' }));
  const payload = b64url(JSON.stringify(claims));
  const signature = createHmac(HASH_OF[alg], key).update(`${head}.${payload}`).digest('base64url');
  return `${head}.${payload}.${signature}`;
}

/** Query parameters sorted by name and re-encoded. */
export function sortedQuery(url: string): string {
  const params = [...new URL(url).searchParams.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new URLSearchParams(params).toString();
}

export function signLegacy(key: string, timestamp: number, url: string, body: string): string {
  const bodyHash = createHash('sha256').update(body).digest();
  const message = Buffer.concat([Buffer.from(`${timestamp}\n${sortedQuery(url)}\n`), bodyHash]);
  return createHmac('sha256', key).update(message).digest('base64');
}
