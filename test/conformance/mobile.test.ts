import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { eventually } from '../helpers/waits.js';
import { verifySignedCall } from '../../src/connectors/mobile/signature.js';
import { parseCall } from '../../src/connectors/mobile/inbound.js';
import { renderMessage } from '../../src/connectors/mobile/render.js';
import { createMobileConnector } from '../../src/connectors/mobile/connector.js';
import { reportToken } from '../../src/connectors/mobile/status-url.js';
import type { ChannelContext, InboundCall, InboundEvent } from '../../src/connectors/connector.js';

/**
 * The mobile connector against the SMS provider's public reference, without the stand-in: every
 * call below is shaped as the reference shows it. Sources:
 * - the SMS provider's Node SDK, webhook JWT reference vectors (its test data of valid and
 *   invalid signed-webhook tokens; one secret, one clock, tokens transcribed as they are);
 * - the provider's API reference: the example send request and its 201 answer, the status
 *   report's example query, the inbound SMS form and its short-code form (platforms.md §5.2-5.5);
 * - the list's filters (`recipient`, `from`, `direction`, `limit`, `offset`) as a third-party
 *   client of the API names them (platforms.md §5.2; docs/platform-conformance.md says how sure).
 */

// ---- The SDK's reference vectors (facts: secret, clock, URL, payload, token, verdict) ----

const SECRET = '36efdd1aace2e26cd490f0d951138253bef2f7c6d34d18981da781555cc4cebb';
/** The vectors' clock: 2021-07-05T12:00:00+02:00. */
const VECTOR_NOW = Date.parse('2021-07-05T12:00:00+02:00');

interface Vector {
  name: string;
  url: string;
  payload?: string;
  token: string;
  valid: boolean;
}

const HEAD_HS256 = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';
const CLAIMS_ROOT =
  'eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiI1OWEyNDRkYy1lOWFkLTRlMjMtOTc3OC0zNzFmYWEyMzhmNzIiLCJ1cmxfaGFzaCI6IjBmMTE1ZGIwNjJiN2MwZGQwMzBiMTY4NzhjOTlkZWE1YzM1NGI0OWRjMzdiMzhlYjg4NDYxNzljNzc4M2U5ZDcifQ';
const CLAIMS_PARAMS =
  'eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiJjOTQ2YWY3Ny1lMTgyLTRlYWEtYjJmZi0xYTU0NWI1ZTk5MWEiLCJ1cmxfaGFzaCI6IjQxZjA1ZjBkZGQwYTIyYWIyMDlhYzQ2ZjQ3YzQ1NzJkOWNlZmEyNTdlZDc0YjI0MDA0YmFlNzUzZWNlNmMyNjAifQ';
const CLAIMS_PARAMS_PAYLOAD =
  'eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiI5M2U1NTAwNi1hMGU4LTQ1MjYtYTE5MC1mYTVmZjAwZWExMTYiLCJ1cmxfaGFzaCI6IjQxZjA1ZjBkZGQwYTIyYWIyMDlhYzQ2ZjQ3YzQ1NzJkOWNlZmEyNTdlZDc0YjI0MDA0YmFlNzUzZWNlNmMyNjAiLCJwYXlsb2FkX2hhc2giOiJkZmZkNjAyMWJiMmJkNWIwYWY2NzYyOTA4MDllYzNhNTMxOTFkZDgxYzdmNzBhNGIyODY4OGEzNjIxODI5ODZmIn0';
const CLAIMS_ROOT_PAYLOAD =
  'eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiIxNDUwMTUzMi05NmYyLTQ2ODQtOTgzMi02OGYwOTUxYWUzNDIiLCJ1cmxfaGFzaCI6IjBmMTE1ZGIwNjJiN2MwZGQwMzBiMTY4NzhjOTlkZWE1YzM1NGI0OWRjMzdiMzhlYjg4NDYxNzljNzc4M2U5ZDciLCJwYXlsb2FkX2hhc2giOiJkZmZkNjAyMWJiMmJkNWIwYWY2NzYyOTA4MDllYzNhNTMxOTFkZDgxYzdmNzBhNGIyODY4OGEzNjIxODI5ODZmIn0';

const VECTORS: Vector[] = [
  {
    name: 'valid, no URL parameters, no payload',
    url: 'https://example.com/',
    token: `${HEAD_HS256}.${CLAIMS_ROOT}.6Fp0rVOsRr1fj9S2GidXAfkmPVofKr8_RTffC6G6r2E`,
    valid: true,
  },
  {
    name: 'valid, URL parameters, no payload',
    url: 'https://example.com/path?bar=1&foo=2',
    token: `${HEAD_HS256}.${CLAIMS_PARAMS}.huo2ou6JDoDc7sV25d75UMWeYhBeavQlLsqIibSZuac`,
    valid: true,
  },
  {
    name: 'valid, URL parameters and payload',
    url: 'https://example.com/path?bar=1&foo=2',
    payload: 'Hello, World!',
    token: `${HEAD_HS256}.${CLAIMS_PARAMS_PAYLOAD}._H--TOuYFLpeEH39-rg5E3IHVkjHozBcaKVWPRC5m9I`,
    valid: true,
  },
  {
    name: 'received before it was issued (nbf in the future)',
    url: 'https://example.com/',
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ4MjgwMCwiZXhwIjoxNjI1NDgyODYwLCJqdGkiOiJmOWY4YzM4Mi0yNDQ5LTQzMTEtYjcyYi0xZGY3MTY4NzkzMWUiLCJ1cmxfaGFzaCI6IjBmMTE1ZGIwNjJiN2MwZGQwMzBiMTY4NzhjOTlkZWE1YzM1NGI0OWRjMzdiMzhlYjg4NDYxNzljNzc4M2U5ZDcifQ.ZELgDFNGhjZH9CffQKcq3sytBe2I0KciLxpBhcfstHQ',
    valid: false,
  },
  {
    name: 'received after it expired',
    url: 'https://example.com/',
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3NTYwMCwiZXhwIjoxNjI1NDc1NjYwLCJqdGkiOiI1ZjAyZjUyMi02MDMwLTQ2YzgtYjVhMy0wMTI0NjQ3OGQ4YmMiLCJ1cmxfaGFzaCI6IjBmMTE1ZGIwNjJiN2MwZGQwMzBiMTY4NzhjOTlkZWE1YzM1NGI0OWRjMzdiMzhlYjg4NDYxNzljNzc4M2U5ZDcifQ.45MSST3B_2PsjNUeiuW54_vUQgVw4rBXrdWrOUEz3lM',
    valid: false,
  },
  {
    name: 'received on another URL (its parameters in another order)',
    url: 'https://example.com/path?foo=1&bar=2',
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiJhNzVjOTA5Ni1lODIzLTQ0MmItODVmMi03ZDNjOWQ5YjcyNmIiLCJ1cmxfaGFzaCI6IjZhMDIyZDgzNGMxODMzMGJhYWQ4YTJiZDYxMzUxNzNlZDIxNjEwYTQ1NDUxNmJlMGRmM2YxY2MwMTUxNjEwZWEifQ.z6Sw1XQIM0wuEQGBhXBdawDIIrtMg2XnmA_bpDq53pE',
    valid: false,
  },
  {
    name: 'the payload does not match',
    url: 'https://example.com/',
    payload: 'Hello, World!',
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiIxNDUwMTUzMi05NmYyLTQ2ODQtOTgzMi02OGYwOTUxYWUzNDIiLCJ1cmxfaGFzaCI6IjBmMTE1ZGIwNjJiN2MwZGQwMzBiMTY4NzhjOTlkZWE1YzM1NGI0OWRjMzdiMzhlYjg4NDYxNzljNzc4M2U5ZDciLCJwYXlsb2FkX2hhc2giOiJmYjYyZjAyYWNkYTdkNzQxNzdhNzAxYTFjZTAwNmU2YmFjZDkwYzdkNGQ3YWI0ODE2OTJjMWRhNDdjODEwNzZiIn0.m79RCwO6dGa9pvzsQypkVuXQ6eM0CkRl6_U7MfWg6TM',
    valid: false,
  },
  {
    name: 'signed with another secret',
    url: 'https://example.com/',
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiIyNDNjMjdhZS0yZjAyLTQ2YTAtODg1Mi1jNjZmMzdlYTlmNDYiLCJ1cmxfaGFzaCI6IjBmMTE1ZGIwNjJiN2MwZGQwMzBiMTY4NzhjOTlkZWE1YzM1NGI0OWRjMzdiMzhlYjg4NDYxNzljNzc4M2U5ZDcifQ.JgSeYyOtlEKAXk8bz30iJI4tXgf4lxknoiezawuVhb4',
    valid: false,
  },
  {
    name: 'the payload was removed in transit',
    url: 'https://example.com/',
    payload: '',
    token: `${HEAD_HS256}.${CLAIMS_ROOT_PAYLOAD}.bHfsjj3tljfzTufoG3EU3p_yFrQh9CufyzRSaRMd4ss`,
    valid: false,
  },
  {
    name: 'a payload was added in transit',
    url: 'https://example.com/',
    payload: 'Hello, World!',
    token: `${HEAD_HS256}.${CLAIMS_ROOT}.6Fp0rVOsRr1fj9S2GidXAfkmPVofKr8_RTffC6G6r2E`,
    valid: false,
  },
  {
    name: 'valid, a port in the URL',
    url: 'https://example.com:8080/',
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiI1OWEyNDRkYy1lOWFkLTRlMjMtOTc3OC0zNzFmYWEyMzhmNzIiLCJ1cmxfaGFzaCI6IjA3Zjc4NjFhNjliMTNjMjI5YzZhZTU5NmQxOThiMjc2M2IwNTRjZjVlMDAwZDczNmQxYzQ4MTAyZDc3MGNmZmMifQ.vcpa0IicGAbpo064dOjiA2VbVOR2S5uZBEaBOP16sS8',
    valid: true,
  },
  {
    name: 'valid, encoded brackets and + for spaces in the URL (hashed as received)',
    url: 'https://example.com/?obj%5Bfield1%5D=val1&obj%5Bfield2%5D=val2&param=value+with+spaces',
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiI1OWEyNDRkYy1lOWFkLTRlMjMtOTc3OC0zNzFmYWEyMzhmNzIiLCJ1cmxfaGFzaCI6IjhhZmYzNzQ4ZDc4OWM0MzMzNTczZTFjMzFmZTViMDA0OTQwY2I1ZmM0NzQ2MGVkM2QwZTY1NGY3ZmM0ZTVmYWUifQ.mJBCMfEjKmN3IMuzqPXPHktWETrcu0iNdF3agE8PDyI',
    valid: true,
  },
  {
    name: 'valid, special characters in the payload',
    url: 'https://example.com/',
    payload: 'Some text containg & < >, & and \\u0026',
    token:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJNZXNzYWdlQmlyZCIsIm5iZiI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiI1OWEyNDRkYy1lOWFkLTRlMjMtOTc3OC0zNzFmYWEyMzhmNzIiLCJ1cmxfaGFzaCI6IjBmMTE1ZGIwNjJiN2MwZGQwMzBiMTY4NzhjOTlkZWE1YzM1NGI0OWRjMzdiMzhlYjg4NDYxNzljNzc4M2U5ZDciLCJwYXlsb2FkX2hhc2giOiIyNDMxYmQ5Y2NiNDhlZDAxNmZhZDU2N2IwNzcxMjAzOGI1Y2RkOTQ5YWM5ZDQxZmU0NjkzZDVhMzg0NWNmN2U4In0.IQiKzeEPaO3A48lhKmBDSmxZyCESPCGxdSKFdi0dEJs',
    valid: true,
  },
  {
    name: 'valid, HS384',
    url: 'https://example.com/',
    token: `eyJhbGciOiJIUzM4NCIsInR5cCI6IkpXVCJ9.${CLAIMS_ROOT}.KNMW-29X77lZeuPmThmHWc_RUAvTkaDkpxIZK6mqE08v8mWKiU9Edh4QXwAJO2nv`,
    valid: true,
  },
  {
    name: 'valid, HS512',
    url: 'https://example.com/',
    token: `eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9.${CLAIMS_ROOT}.rd6r0iMyNGnVPCwurETphE3Y8rpAyvvnUK0S8WvGUkt2E1QSRAZ7NZJZBHw1Y_Wb5W-sK9HJr_PRL2vz4jRT3Q`,
    valid: true,
  },
  {
    name: 'alg none',
    url: 'https://example.com/',
    token:
      'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJpc3MiOiJNZXNzYWdlQmlyZCIsImlhdCI6MTYyNTQ3OTIwMCwiZXhwIjoxNjI1NDc5MjYwLCJqdGkiOiI1OWEyNDRkYy1lOWFkLTRlMjMtOTc3OC0zNzFmYWEyMzhmNzIiLCJ1cmxfaGFzaCI6IjBmMTE1ZGIwNjJiN2MwZGQwMzBiMTY4NzhjOTlkZWE1YzM1NGI0OWRjMzdiMzhlYjg4NDYxNzljNzc4M2U5ZDcifQ.',
    valid: false,
  },
];

const claimsOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
/** The vectors' issuer is the provider's name: read from them, not written here. */
const ISSUER = String(claimsOf(VECTORS[0]!.token).iss);
const HEADER = 'Smsprovider-Signature-JWT';

// ---- Calls shaped as the reference shows them, signed as its vectors are ----

const HASHES = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' } as const;
type Alg = keyof typeof HASHES;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

/** A token with the reference's claims: iss, nbf, exp 60 s later, jti, url_hash, payload_hash only with a body. */
function sign(key: string, url: string, body: string, nowMs: number, alg: Alg = 'HS256', issuer = ISSUER): string {
  const nbf = Math.floor(nowMs / 1000);
  const claims: Record<string, unknown> = { iss: issuer, nbf, exp: nbf + 60, jti: randomUUID(), url_hash: sha256(url) };
  if (body !== '') claims.payload_hash = sha256(body);
  const head = b64({ alg, typ: 'JWT' });
  const payload = b64(claims);
  return `${head}.${payload}.${createHmac(HASHES[alg], key).update(`${head}.${payload}`).digest('base64url')}`;
}

/** The reference's example status report query (its `+` left as it is), with our values in place of its id, reference and status. */
function statusQuery(id: string, reference: string, status: string, extra = ''): string {
  return (
    `datacoding=plain&id=${id}&mccmnc=310010&messageLength=4&messagePartCount=1&ported=0&price[amount]=0.000&price[currency]=USD` +
    `&recipient=18885551515&reference=${reference}&statusDatetime=2023-07-28T17:57:12+00:00&status=${status}${extra}`
  );
}

/** The reference's inbound SMS form. */
const INBOUND_FORM = new URLSearchParams({
  id: 'e8077d803532c0b5937c639b60216938',
  recipient: '18005551212',
  originator: '18885551515',
  body: 'This is an incoming message',
  createdDatetime: '2023-07-27T00:49:29+00:00',
}).toString();
/** The short-code form: `mid`, `shortcode`, `message`, `receive_datetime` (YYYYMMDDhhmmss). */
const SHORTCODE_FORM = new URLSearchParams({
  mid: '7b9b5c0a2f4e4d8c',
  shortcode: '1008',
  originator: '18885551516',
  message: 'STOP',
  receive_datetime: '20230727004929',
}).toString();

const channel: ChannelContext = {
  id: '77',
  type: 'mobile',
  mode: 'production',
  config: { type: 'smsprovider', sender_id: '18005551212' },
  secrets: { access_token: 'live_referencekey', signing_key: SECRET },
};
const settingsAt = (nowMs: number) => ({ signatureHeaderName: HEADER, jwtIssuer: ISSUER, now: () => nowMs });

describe("mobile conformance: the provider SDK's webhook JWT reference vectors", () => {
  for (const v of VECTORS) {
    test(`${v.valid ? 'accepted' : 'refused'}: ${v.name}`, () => {
      const check = verifySignedCall({ token: v.token, key: SECRET, issuer: ISSUER, url: v.url, rawBody: Buffer.from(v.payload ?? ''), nowMs: VECTOR_NOW });
      assert.equal(check.ok, v.valid, check.ok ? 'accepted' : check.reason);
    });
  }

  test('through the parser: a valid vector passes its signature (and, carrying no report, is a 400); a tampered one is a 401', () => {
    const valid = VECTORS[0]!;
    const url = `${valid.url}`;
    const call: InboundCall = { method: 'GET', endpoint: 'status', url, headers: { [HEADER.toLowerCase()]: valid.token }, query: {}, rawBody: Buffer.alloc(0) };
    // Signed and fresh, but the reference's vector carries no report: answered 400, not 401.
    const parsed = parseCall(call, channel, settingsAt(VECTOR_NOW));
    assert.deepEqual(parsed.ok ? null : parsed.status, 400);
    // One character in the middle of the signature changed (the last one may only hold padding bits).
    const at = valid.token.lastIndexOf('.') + 10;
    const flipped = `${valid.token.slice(0, at)}${valid.token[at] === 'A' ? 'B' : 'A'}${valid.token.slice(at + 1)}`;
    const tampered = { ...call, headers: { [HEADER.toLowerCase()]: flipped } };
    const refused = parseCall(tampered, channel, settingsAt(VECTOR_NOW));
    assert.deepEqual(refused.ok ? null : refused.status, 401);
  });
});

describe('mobile conformance: the reference callbacks through the parser', () => {
  const NOW = Date.parse('2023-07-28T17:57:12Z');
  const status = (query: string, alg: Alg = 'HS256'): InboundEvent[] => {
    const url = `https://api.example.test/v1/inbound/77/status?${query}`;
    const parsed = parseCall(
      { method: 'GET', endpoint: 'status', url, headers: { [HEADER.toLowerCase()]: sign(SECRET, url, '', NOW, alg) }, query: {}, rawBody: Buffer.alloc(0) },
      channel,
      settingsAt(NOW),
    );
    assert.ok(parsed.ok, JSON.stringify(parsed));
    return parsed.events;
  };

  test('each status of the reference: sent and buffered not final; delivered, delivery_failed, expired final; scheduled nothing', () => {
    const seen = ['sent', 'buffered', 'delivered', 'delivery_failed', 'expired'].map((s) => {
      const [event] = status(statusQuery('b6aae1b5dfb2427a8f7ea6a717ba31a9', '26', s));
      assert.ok(event?.kind === 'status');
      return [s, event.report.status, event.report.final];
    });
    assert.deepEqual(seen, [
      ['sent', 'sent', false],
      ['buffered', 'sent', false],
      ['delivered', 'delivered', true],
      ['delivery_failed', 'failed', true],
      ['expired', 'expired', true],
    ]);
    assert.deepEqual(status(statusQuery('b6aae1b5dfb2427a8f7ea6a717ba31a9', '26', 'scheduled')), []);
    const [first] = status(statusQuery('b6aae1b5dfb2427a8f7ea6a717ba31a9', '26', 'sent'));
    assert.ok(first?.kind === 'status');
    assert.deepEqual(first.report, { messageExternalId: 'b6aae1b5dfb2427a8f7ea6a717ba31a9', messageReference: '26', status: 'sent', final: false });
    assert.equal(first.at, Date.parse('2023-07-28T17:57:12Z'));
  });

  test('status error code 103 (the recipient replied STOP) is an opt-out besides the failure', () => {
    const events = status(statusQuery('m103', '27', 'delivery_failed', '&statusReason=unknown%20subscriber&statusErrorCode=103'), 'HS512');
    assert.deepEqual(
      events.map((e) => e.kind),
      ['status', 'opt_out'],
    );
  });

  test('the inbound SMS form and the short-code form are messages from the sender', () => {
    const receive = (form: string, alg: Alg) => {
      const url = 'https://api.example.test/v1/inbound/77/receive';
      const parsed = parseCall(
        {
          method: 'POST',
          endpoint: 'receive',
          url,
          headers: { [HEADER.toLowerCase()]: sign(SECRET, url, form, NOW, alg) },
          query: {},
          rawBody: Buffer.from(form),
        },
        channel,
        settingsAt(NOW),
      );
      assert.ok(parsed.ok, JSON.stringify(parsed));
      return parsed.events;
    };
    const [sms] = receive(INBOUND_FORM, 'HS384');
    assert.ok(sms?.kind === 'message');
    assert.deepEqual(
      [sms.externalId, sms.user, sms.content, sms.at, sms.to],
      [
        'e8077d803532c0b5937c639b60216938',
        { phoneNumber: '18885551515' },
        { type: 'text', text: 'This is an incoming message', matchQuickReplies: true },
        Date.parse('2023-07-27T00:49:29Z'),
        '18005551212',
      ],
    );
    const short = receive(SHORTCODE_FORM, 'HS256');
    assert.deepEqual(
      short.map((e) => e.kind),
      ['message', 'opt_out'],
    );
    assert.ok(short[0]?.kind === 'message');
    assert.deepEqual([short[0].externalId, short[0].to, short[0].at], ['7b9b5c0a2f4e4d8c', '1008', Date.parse('2023-07-27T00:49:29Z')]);
  });
});

describe('mobile conformance: outbound requests against the reference example', () => {
  test('the send body holds the example request’s fields with the same values and types, plus reportUrl and datacoding', () => {
    // The reference's example: {"recipients":["188885551515"],"reference":"10","originator":"18005551212","body":"Simple Message ☺"}
    const example = { recipients: ['188885551515'], reference: '10', originator: '18005551212', body: 'Simple Message ☺' };
    const rendered = renderMessage(
      channel,
      { id: '1', externalId: null, phoneNumber: '+188885551515', userRef: null, email: null, name: null },
      { id: '10', content: { type: 'text', payload: 'Simple Message ☺' } },
      'https://api.example.test/v1/inbound/77/status?report_token=x',
    );
    assert.ok(rendered.ok);
    const { reportUrl, datacoding, ...rest } = rendered.value;
    assert.deepEqual(rest, example);
    // Both documented parameters of the same request: the per-message status URL and the coding.
    assert.deepEqual([reportUrl, datacoding], ['https://api.example.test/v1/inbound/77/status?report_token=x', 'auto']);
  });
});

// ---- The HTTP route and the provider's API, with a server that answers as the reference does ----

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers as the reference's examples: the list (an empty page unless told), and the 201 of a send. */
async function startReferenceApi(): Promise<{ url: string; calls: Recorded[]; listed: Record<string, unknown>[]; close(): Promise<void> }> {
  const calls: Recorded[] = [];
  const listed: Record<string, unknown>[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/messages') {
        const sent = JSON.parse(body) as Record<string, unknown>;
        const id = `efa6405d518d4c0c88cce11f7db7${String(++next).padStart(4, '0')}`;
        res.statusCode = 201;
        res.end(
          JSON.stringify({
            id,
            href: `https://rest.example.test/messages/${id}`,
            direction: 'mt',
            type: 'sms',
            originator: sent.originator,
            body: sent.body,
            reference: sent.reference,
            validity: null,
            gateway: 10,
            typeDetails: {},
            datacoding: 'plain',
            mclass: 1,
            scheduledDatetime: null,
            createdDatetime: '2017-09-01T10:00:00+00:00',
            recipients: {
              totalCount: 1,
              totalSentCount: 1,
              totalDeliveredCount: 0,
              totalDeliveryFailedCount: 0,
              items: [{ recipient: Number((sent.recipients as string[])[0]), status: 'sent', statusDatetime: '2017-09-01T10:00:00+00:00' }],
            },
          }),
        );
        return;
      }
      if (req.method === 'GET' && req.url?.startsWith('/messages')) {
        const q = new URL(req.url, 'http://x').searchParams;
        const offset = Number(q.get('offset') ?? 0);
        const limit = Number(q.get('limit') ?? 20);
        res.end(JSON.stringify({ offset, limit, count: 0, totalCount: listed.length, links: {}, items: listed.slice(offset, offset + limit) }));
        return;
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ errors: [{ code: 98, description: 'API not found', parameter: null }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls, listed, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('mobile conformance: the HTTP route and the API, as the reference shapes them', () => {
  let s: TestServer;
  let api: Awaited<ReturnType<typeof startReferenceApi>>;
  let hook: WebhookReceiver;
  let channelId = '';
  const KEY = 'reference-signing-key';
  const ACCESS = 'live_referenceaccesskey';

  before(async () => {
    api = await startReferenceApi();
    hook = await startWebhookReceiver();
    s = await startTestServer('sqlite', { workers: true, env: { SMSPROVIDER_API_URL: api.url, SMSPROVIDER_JWT_ISSUER: ISSUER, WORKER_POLL_MS: '50' } });
    const made = await s.api.post('/v1/channels', {
      type: 'mobile',
      name: 'SMS',
      webhook: { url: hook.url },
      provider: { type: 'smsprovider', sender_id: '+18005551212', access_token: ACCESS, signing_key: KEY },
    });
    assert.equal(made.status, 201, made.text);
    hook.secret = made.body.webhook.secret;
    channelId = made.body.id as string;
  });
  after(async () => {
    await s?.close();
    await hook?.close();
    await api?.close();
  });

  const call = (endpoint: 'status' | 'receive', query: string, body: string, headers: Record<string, string>) =>
    fetch(`${s.baseUrl}/inbound/${channelId}/${endpoint}${query === '' ? '' : `?${query}`}`, {
      method: endpoint === 'status' ? 'GET' : 'POST',
      headers: { ...(endpoint === 'receive' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      ...(endpoint === 'receive' ? { body } : {}),
    });
  const signed = (endpoint: 'status' | 'receive', query: string, body = '', alg: Alg = 'HS256', key = KEY, nowMs = Date.now()) => {
    const url = `${s.baseUrl}/inbound/${channelId}/${endpoint}${query === '' ? '' : `?${query}`}`;
    return call(endpoint, query, body, { [HEADER]: sign(key, url, body, nowMs, alg) });
  };

  test('the credential check and a send: AccessKey, JSON, the example fields; the 201 id is the message’s', async () => {
    const check = api.calls.find((c) => c.method === 'GET');
    assert.deepEqual([check?.url, check?.headers.authorization], ['/messages?limit=1', `AccessKey ${ACCESS}`]);
    // The example's recipient is not a number the API takes (too long for its country): the report example's is.
    const res = await s.api.post('/v1/messages', {
      channel: { id: channelId },
      contact: { phone_number: '+18885551515' },
      content: { type: 'text', payload: 'Simple Message ☺' },
    });
    assert.equal(res.status, 201, res.text);
    const sent = await eventually(async () => api.calls.find((c) => c.method === 'POST'));
    assert.equal(sent.headers.authorization, `AccessKey ${ACCESS}`);
    assert.match(String(sent.headers['content-type']), /^application\/json/);
    const body = JSON.parse(sent.body) as Record<string, unknown>;
    assert.deepEqual([body.recipients, body.originator, body.body, body.reference], [['18885551515'], '18005551212', 'Simple Message ☺', res.body.id]);
    await eventually(async () => ((await s.api.get(`/v1/messages/${res.body.id}`)).body.status === 'sent' ? true : undefined));
  });

  test('a signed status report of each algorithm moves its message; an unsigned one on the report URL too; tampered, expired, none and forged ones do not', async () => {
    const res = await s.api.post('/v1/messages', {
      channel: { id: channelId },
      contact: { phone_number: '+18885551515' },
      content: { type: 'text', payload: 'hi' },
    });
    const ref = res.body.id as string;
    const sent = await eventually(async () => api.calls.find((c) => c.method === 'POST' && (JSON.parse(c.body) as { reference: string }).reference === ref));
    const providerId = `efa6405d518d4c0c88cce11f7db7${String(api.calls.filter((c) => c.method === 'POST').indexOf(sent) + 1).padStart(4, '0')}`;
    const statusOf = async () => (await s.api.get(`/v1/messages/${ref}`)).body.status as string;
    await eventually(async () => ((await statusOf()) === 'sent' ? true : undefined));

    // Refused: tampered (the URL changed after signing), expired, alg none, another key; and unsigned without the token.
    const q = statusQuery(providerId, ref, 'delivery_failed');
    const url = `${s.baseUrl}/inbound/${channelId}/status?${q}`;
    const good = sign(KEY, url, '', Date.now());
    assert.equal((await call('status', q.replace('delivery_failed', 'expired'), '', { [HEADER]: good })).status, 404);
    assert.equal((await signed('status', q, '', 'HS256', KEY, Date.now() - 120_000)).status, 404);
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${good.split('.')[1]}.`;
    assert.equal((await call('status', q, '', { [HEADER]: none })).status, 404);
    assert.equal((await signed('status', q, '', 'HS256', 'another-key')).status, 404);
    assert.equal((await call('status', q, '', {})).status, 404);
    assert.equal(await statusOf(), 'sent', 'nothing refused changed the message');

    // Accepted: HS384 (buffered), an unsigned report on the report URL (the one each message names), HS512 (delivered).
    const buffered = await signed('status', statusQuery(providerId, ref, 'buffered'), '', 'HS384');
    assert.deepEqual([buffered.status, await buffered.text()], [200, 'OK']);
    const reportUrl = JSON.parse(sent.body).reportUrl as string;
    assert.match(reportUrl, new RegExp(`/inbound/${channelId}/status\\?report_token=${reportToken({ id: channelId, secrets: { signing_key: KEY } })}$`));
    const unsigned = await fetch(`${reportUrl}&${statusQuery(providerId, ref, 'sent')}`);
    assert.equal(unsigned.status, 200);
    const delivered = await signed('status', statusQuery(providerId, ref, 'delivered'), '', 'HS512');
    assert.equal(delivered.status, 200);
    await eventually(async () => ((await statusOf()) === 'delivered' ? true : undefined));
  });

  test('the inbound SMS form, signed with each algorithm, is message_received once; unsigned or tampered it stores nothing', async () => {
    assert.equal((await call('receive', '', INBOUND_FORM, {})).status, 404);
    const url = `${s.baseUrl}/inbound/${channelId}/receive`;
    const token = sign(KEY, url, INBOUND_FORM, Date.now());
    assert.equal((await call('receive', '', INBOUND_FORM.replace('incoming', 'forged'), { [HEADER]: token })).status, 404);
    for (const alg of ['HS256', 'HS384', 'HS512'] as const) {
      const res = await signed('receive', '', INBOUND_FORM, alg);
      assert.deepEqual([res.status, await res.text()], [200, 'OK']);
    }
    const event = await hook.waitFor('message_received');
    assert.equal(event.data.content.payload, 'This is an incoming message');
    assert.equal(event.data.contact.phone_number, '+18885551515');
    const messages = (await s.api.get(`/v1/channels/${channelId}/contacts/${event.data.contact.id}/messages`)).body as unknown[];
    assert.equal(messages.filter((m: any) => m.direction === 'received').length, 1, 'the same provider id is stored once');
  });

  test('the lookup by reference asks the list with the filters the reference names, and reads the example shape', async () => {
    const connector = createMobileConnector({
      apiUrl: api.url,
      timeoutMs: 2000,
      signatureHeaderName: HEADER,
      jwtIssuer: ISSUER,
      inboundUrl: (id, endpoint) => `https://api.example.test/v1/inbound/${id}/${endpoint}`,
      now: Date.now,
    });
    api.listed.push({ id: 'efa6405d518d4c0c88cce11f7db775fb', reference: '4242', createdDatetime: '2017-09-01T10:00:00+00:00', recipients: { items: [] } });
    const since = Date.parse('2017-09-01T10:00:00+00:00');
    const found = await connector.roles.sentLookup.findSent(channel, '4242', {
      since,
      recipient: { id: '1', externalId: null, phoneNumber: '+31612345678', userRef: null, email: null, name: null },
    });
    assert.deepEqual(found, { ok: true, value: { externalIds: ['efa6405d518d4c0c88cce11f7db775fb'] } });
    const asked = new URL(api.calls.at(-1)!.url, 'http://x').searchParams;
    assert.deepEqual(Object.fromEntries(asked), {
      direction: 'mt',
      recipient: '31612345678',
      from: '2017-09-01T09:55:00+00:00',
      limit: '100',
      offset: '0',
    });
  });
});
