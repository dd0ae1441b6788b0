import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt's cost as log2(N); 15 (N = 32768, 32 MiB of memory per hash) unless a setting lowers it for tests. */
export const DEFAULT_PASSWORD_COST = 15;
const R = 8;
const P = 1;
const KEY_BYTES = 64;
const SALT_BYTES = 16;
/** Shortest password accepted anywhere (sign-up by setup link, change, an owner's initial one). */
export const PASSWORD_MIN_LENGTH = 12;
/** Longer ones are refused before hashing: a megabyte password must not cost a megabyte of work. */
export const PASSWORD_MAX_LENGTH = 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // Node refuses above 32 MiB by default; N=2^15 with r=8 needs 32 MiB plus a little.
  const options: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))));
}

/** `scrypt$N$r$p$salt$hash` (salt and hash in base64), with a fresh random salt. */
export async function hashPassword(password: string, cost = DEFAULT_PASSWORD_COST): Promise<string> {
  const n = 2 ** cost;
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, n, R, P);
  return ['scrypt', n, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Whether the password matches a stored hash; a malformed or unknown hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounds keep a tampered row from asking for gigabytes.
  if (!Number.isInteger(n) || n < 2 || n > 2 ** 20 || (n & (n - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  if (expected.length !== KEY_BYTES) return false;
  const key = await derive(password, salt, n, r, p);
  return timingSafeEqual(key, expected);
}
