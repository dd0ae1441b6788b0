import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { CredentialCache, credentialKey, type IssuedCredential, type PlatformFailure, type PlatformResult } from '../connector.js';
import { httpCall, jsonOf } from '../http.js';
import { retryableStatus } from '../http-failure.js';

/**
 * OAuth 2.0 for service accounts: an RS256 JWT assertion signed with the key's private key
 * (`iss` the key's client e-mail, `aud` the token endpoint, `scope`, one hour at most), exchanged
 * by the jwt-bearer grant for a bearer token. Tokens are kept per channel, key and scope in the
 * credential cache until a minute before they expire; nothing of them is stored.
 */
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Assertions live this long (the platform takes at most an hour). */
const ASSERTION_LIFETIME_S = 3600;

export interface ServiceAccountKey {
  clientEmail: string;
  privateKey: KeyObject;
  privateKeyId: string | undefined;
}

/** The key JSON the platform issues, read; a message when it is not one. */
export function parseServiceAccountKey(text: string | undefined): ServiceAccountKey | string {
  if (text === undefined || text === '') return 'The channel has no service account key.';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'The service account key is not JSON.';
  }
  const key = json as Record<string, unknown>;
  if (typeof key?.client_email !== 'string' || key.client_email === '') return 'The service account key has no client_email.';
  if (typeof key.private_key !== 'string') return 'The service account key has no private_key.';
  try {
    const privateKey = createPrivateKey(key.private_key);
    if (privateKey.asymmetricKeyType !== 'rsa') return 'The private_key of the service account key is not an RSA key.';
    return { clientEmail: key.client_email, privateKey, privateKeyId: typeof key.private_key_id === 'string' ? key.private_key_id : undefined };
  } catch {
    return 'The private_key of the service account key cannot be read as a PEM key.';
  }
}

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The signed assertion for one scope, at `nowMs`. */
export function signedAssertion(key: ServiceAccountKey, scope: string, audience: string, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  const header = b64url({ alg: 'RS256', typ: 'JWT', ...(key.privateKeyId ? { kid: key.privateKeyId } : {}) });
  const claims = b64url({ iss: key.clientEmail, scope, aud: audience, iat, exp: iat + ASSERTION_LIFETIME_S });
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key.privateKey).toString('base64url');
  return `${header}.${claims}.${signature}`;
}

export interface TokenSourceOptions {
  tokenUrl: string;
  timeoutMs: number;
  cache: CredentialCache;
  now(): number;
}

/** Bearer tokens for a channel's key, one per scope, cached. */
export class TokenSource {
  constructor(private readonly o: TokenSourceOptions) {}

  private keyOf(channelId: string, keyText: string, scope: string): string {
    return credentialKey(channelId, `${scope}\n${keyText}`);
  }

  async token(channelId: string, keyText: string | undefined, scope: string): Promise<PlatformResult<string>> {
    const key = parseServiceAccountKey(keyText);
    if (typeof key === 'string') return { ok: false, retryable: false, code: 'no_credentials', message: key };
    return this.o.cache.get(this.keyOf(channelId, keyText ?? '', scope), () => this.exchange(key, scope));
  }

  /** Drops a token the platform refused (401), so the next call obtains another. */
  forget(channelId: string, keyText: string | undefined, scope: string): void {
    this.o.cache.forget(this.keyOf(channelId, keyText ?? '', scope));
  }

  private async exchange(key: ServiceAccountKey, scope: string): Promise<PlatformResult<IssuedCredential>> {
    const body = new URLSearchParams({ grant_type: JWT_BEARER, assertion: signedAssertion(key, scope, this.o.tokenUrl, this.o.now()) }).toString();
    const answer = await httpCall(
      this.o.tokenUrl,
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body, platform: 'rbm' },
      this.o.timeoutMs,
    );
    if (!answer.ok) return answer;
    const json = (jsonOf(answer.value) ?? {}) as Record<string, unknown>;
    const status = answer.value.status;
    if (status >= 200 && status < 300 && typeof json.access_token === 'string') {
      const expiresIn = typeof json.expires_in === 'number' ? json.expires_in : 3600;
      return { ok: true, value: { value: json.access_token, expiresInMs: expiresIn * 1000 } };
    }
    return tokenFailure(status, json);
  }
}

function tokenFailure(status: number, json: Record<string, unknown>): PlatformFailure {
  const code = typeof json.error === 'string' ? json.error : String(status);
  const detail = typeof json.error_description === 'string' ? json.error_description : `HTTP ${status}`;
  const message = `The token endpoint refused the service account key (${code}: ${detail}).`;
  return { ok: false, retryable: retryableStatus(status), code, message };
}
