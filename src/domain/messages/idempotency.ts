import { ApiError } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/crypto.js';

/**
 * `Idempotency-Key` (beyond the specification): the key is kept with the message it created,
 * with a hash of the request body, so a retry finds the first answer in the store, not a cache.
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const KEY = /^[\x21-\x7e]{1,255}$/;

export function checkIdempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !KEY.test(value)) {
    throw ApiError.invalid(IDEMPOTENCY_HEADER, value ?? null, `Header '${IDEMPOTENCY_HEADER}' must be 1 to 255 visible ASCII characters, once.`);
  }
  return value;
}

/** JSON with sorted keys: the same body hashes the same however its keys were ordered. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(body: unknown): string {
  return sha256Hex(canonicalJson(body));
}

export function keyReusedError(key: string): ApiError {
  return ApiError.invalid(IDEMPOTENCY_HEADER, key, `This ${IDEMPOTENCY_HEADER} was used already with a different request body.`);
}
