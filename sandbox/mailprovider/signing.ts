import { createHmac } from 'node:crypto';
import { randomHex } from '../shared/ids.js';

// Signature inside webhook bodies: hex HMAC-SHA256(signing key, timestamp + token), token 50 chars.

export interface BodySignature {
  timestamp: string;
  token: string;
  signature: string;
}

export function signBody(key: string, nowMs: number): BodySignature {
  const timestamp = String(Math.floor(nowMs / 1000));
  const token = randomHex(25);
  return {
    timestamp,
    token,
    signature: createHmac('sha256', key)
      .update(timestamp + token)
      .digest('hex'),
  };
}
