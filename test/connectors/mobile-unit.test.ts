import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { signJwt } from '../../sandbox/smsprovider/signing.js';
import { parseCall } from '../../src/connectors/mobile/inbound.js';
import { verifySignedCall } from '../../src/connectors/mobile/signature.js';
import { originatorOf, renderMessage } from '../../src/connectors/mobile/render.js';
import { providerFailure, retryAfterMs } from '../../src/connectors/mobile/api.js';
import { reportToken, reportUrlOf } from '../../src/connectors/mobile/status-url.js';
import type { ChannelContext, InboundCall, Recipient } from '../../src/connectors/connector.js';
import type { Content } from '../../src/schemas/content.js';

const KEY = 'signing-key-of-the-channel';
const ISSUER = 'Smsprovider';
const HEADER = 'smsprovider-signature-jwt';
const NOW = Date.parse('2026-11-23T10:00:00Z');
const settings = { signatureHeaderName: 'Smsprovider-Signature-JWT', jwtIssuer: ISSUER, now: () => NOW };

const channel: ChannelContext = {
  id: '77',
  type: 'mobile',
  mode: 'production',
  config: { type: 'smsprovider', sender_id: '+420 601 000 111' },
  secrets: { access_token: 'live_key', signing_key: KEY },
};

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A call as the service receives it, signed by the stand-in's own code unless a token is given. */
function signedCall(endpoint: 'status' | 'receive', url: string, body = '', token?: string): InboundCall {
  const jwt = token ?? signJwt(KEY, ISSUER, url, body, NOW);
  const query: Record<string, string> = {};
  for (const [k, v] of new URL(url).searchParams) query[k] = v;
  return { method: endpoint === 'status' ? 'GET' : 'POST', endpoint, url, headers: { [HEADER]: jwt }, query, rawBody: Buffer.from(body) };
}

const STATUS_URL =
  'https://api.example.test/v1/inbound/77/status?datacoding=plain&id=b6aae1b5dfb2427a8f7ea6a717ba31a9&mccmnc=310010&messageLength=4&messagePartCount=1&ported=0&price[amount]=0.000&price[currency]=USD&recipient=18885551515&reference=26&statusDatetime=2023-07-28T17:57:12+00:00&status=delivered';

describe('mobile: the provider signature', () => {
  const check = (token: string | undefined, url = STATUS_URL, body = '', nowMs = NOW, key: string | undefined = KEY) =>
    verifySignedCall({ token, key, issuer: ISSUER, url, rawBody: Buffer.from(body), nowMs });

  test('a call signed by the stand-in passes; the URL is hashed exactly as received', () => {
    assert.equal(check(signJwt(KEY, ISSUER, STATUS_URL, '', NOW)).ok, true);
    // The same URL with the `+` encoded is another URL.
    const reencoded = STATUS_URL.replace('+00:00', '%2B00:00');
    assert.deepEqual(check(signJwt(KEY, ISSUER, STATUS_URL, '', NOW), reencoded), { ok: false, reason: 'the URL does not match' });
  });

  test('another key, issuer, body, or a missing header are refused', () => {
    assert.equal(check(signJwt('other-key', ISSUER, STATUS_URL, '', NOW)).ok, false);
    assert.equal(check(signJwt(KEY, 'Other', STATUS_URL, '', NOW)).ok, false);
    assert.equal(check(undefined).ok, false);
    assert.equal(check(signJwt(KEY, ISSUER, STATUS_URL, '', NOW), STATUS_URL, '', NOW, '').ok, false);
    const body = 'id=1&originator=420777123456&body=hi';
    const url = 'https://api.example.test/v1/inbound/77/receive';
    assert.equal(check(signJwt(KEY, ISSUER, url, body, NOW), url, body).ok, true);
    assert.deepEqual(check(signJwt(KEY, ISSUER, url, body, NOW), url, `${body}!`), { ok: false, reason: 'the body does not match' });
    // A token made for no body does not cover one.
    assert.deepEqual(check(signJwt(KEY, ISSUER, url, '', NOW), url, body), { ok: false, reason: 'the body does not match' });
  });

  test('expiry and not-before, with 5 s of tolerance', () => {
    const token = signJwt(KEY, ISSUER, STATUS_URL, '', NOW);
    assert.equal(check(token, STATUS_URL, '', NOW + 64_000).ok, true);
    assert.deepEqual(check(token, STATUS_URL, '', NOW + 66_000), { ok: false, reason: 'expired' });
    // Signed by a provider clock ahead of ours (a sandbox clock moved forward): refused.
    assert.deepEqual(check(signJwt(KEY, ISSUER, STATUS_URL, '', NOW + 30_000)), { ok: false, reason: 'not yet valid' });
    assert.equal(check(signJwt(KEY, ISSUER, STATUS_URL, '', NOW + 4_000)).ok, true);
  });

  test('the HMAC family is accepted (HS256, HS384, HS512); none, a public-key algorithm and a forged header are refused', () => {
    for (const alg of ['HS256', 'HS384', 'HS512'] as const) assert.equal(check(signJwt(KEY, ISSUER, STATUS_URL, '', NOW, alg)).ok, true, alg);
    const claims = { iss: ISSUER, nbf: NOW / 1000, exp: NOW / 1000 + 60, url_hash: 'x' };
    assert.deepEqual(check(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`), { ok: false, reason: 'not a signed JWT' });
    assert.deepEqual(check(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.AAAA`), { ok: false, reason: 'algorithm none is not accepted' });
    const payload = b64(claims);
    // The signing key used as if it were a public key: refused before any check of the signature.
    for (const alg of ['RS256', 'ES256', 'PS256', 'HS1', 'hs256']) {
      const head = b64({ alg, typ: 'JWT' });
      const sig = createHmac('sha256', KEY).update(`${head}.${payload}`).digest('base64url');
      assert.deepEqual(check(`${head}.${payload}.${sig}`), { ok: false, reason: `algorithm ${alg} is not accepted` });
    }
    // An HS256 header over an HS512 signature does not verify, nor the other way round.
    const head512 = b64({ alg: 'HS512', typ: 'JWT' });
    const sig512 = createHmac('sha512', KEY).update(`${head512}.${payload}`).digest('base64url');
    assert.deepEqual(check(`${b64({ alg: 'HS256', typ: 'JWT' })}.${payload}.${sig512}`), { ok: false, reason: 'bad signature' });
    const sig256 = createHmac('sha256', KEY).update(`${head512}.${payload}`).digest('base64url');
    assert.deepEqual(check(`${head512}.${payload}.${sig256}`), { ok: false, reason: 'bad signature' });
  });
});

describe('mobile: callbacks as events', () => {
  test('a delivered report is a final status of the message, keyed by message, status and time', () => {
    const parsed = parseCall(signedCall('status', STATUS_URL), channel, settings);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.reply, { contentType: 'text/plain; charset=utf-8', body: 'OK' });
    assert.equal(parsed.events.length, 1);
    const event = parsed.events[0]!;
    assert.equal(event.kind, 'status');
    if (event.kind !== 'status') return;
    assert.deepEqual(event.report, { messageExternalId: 'b6aae1b5dfb2427a8f7ea6a717ba31a9', messageReference: '26', status: 'delivered', final: true });
    assert.deepEqual(event.user, { phoneNumber: '18885551515' });
    // The `+` arrived decoded as a space: the time is still read.
    assert.equal(event.at, Date.parse('2023-07-28T17:57:12Z'));
    assert.equal(event.eventKey, 'b6aae1b5dfb2427a8f7ea6a717ba31a9:delivered:2023-07-28T17:57:12 00:00');
  });

  test('failed, expired, buffered and STOP (code 103) reports', () => {
    const report = (extra: string) => {
      const parsed = parseCall(signedCall('status', `https://x.test/v1/inbound/77/status?id=m1&recipient=420777000111${extra}`), channel, settings);
      assert.ok(parsed.ok);
      return parsed.events;
    };
    const failed = report('&status=delivery_failed&statusReason=unknown&statusErrorCode=7')[0];
    assert.ok(failed?.kind === 'status');
    assert.deepEqual(failed.report, { messageExternalId: 'm1', status: 'failed', final: true, platformCode: '7', reason: 'unknown' });
    const expired = report('&status=expired&statusErrorCode=1')[0];
    assert.ok(expired?.kind === 'status');
    assert.deepEqual([expired.report.status, expired.report.final], ['expired', true]);
    const buffered = report('&status=buffered')[0];
    assert.ok(buffered?.kind === 'status');
    assert.deepEqual([buffered.report.status, buffered.report.final], ['sent', false]);
    assert.deepEqual(report('&status=scheduled'), []);
    const stop = report('&status=delivery_failed&statusReason=whatever%20text&statusErrorCode=103');
    assert.deepEqual(
      stop.map((e) => e.kind),
      ['status', 'opt_out'],
    );
    assert.ok(stop[1]?.kind === 'opt_out');
    assert.deepEqual([stop[1].reason, stop[1].platformCode], ['stop', '103']);
  });

  test('an inbound SMS is a message from the sender number, in every spelling of the provider', () => {
    const url = 'https://api.example.test/v1/inbound/77/receive';
    const standard = new URLSearchParams({
      id: 'in-1',
      recipient: '420601000111',
      originator: '420777123456',
      body: 'Dobrý den',
      createdDatetime: '2023-07-27T00:49:29+00:00',
    }).toString();
    const parsed = parseCall(signedCall('receive', url, standard), channel, settings);
    assert.ok(parsed.ok);
    assert.equal(parsed.reply?.body, 'OK');
    assert.deepEqual(parsed.events, [
      {
        kind: 'message',
        user: { phoneNumber: '420777123456' },
        at: Date.parse('2023-07-27T00:49:29Z'),
        externalId: 'in-1',
        content: { type: 'text', text: 'Dobrý den', matchQuickReplies: true },
        to: '420601000111',
      },
    ]);
    const short = new URLSearchParams({
      mid: 'in-2',
      shortcode: '3000',
      originator: '420777123456',
      message: 'JOIN',
      receive_datetime: '20230727004929',
    }).toString();
    const shortParsed = parseCall(signedCall('receive', url, short), channel, settings);
    assert.ok(shortParsed.ok);
    assert.deepEqual(
      shortParsed.events.map((e) => (e.kind === 'message' ? [e.externalId, e.at, e.content, e.to] : e.kind)),
      [['in-2', Date.parse('2023-07-27T00:49:29Z'), { type: 'text', text: 'JOIN', matchQuickReplies: true }, '3000']],
    );
    const mms = new URLSearchParams({
      id: 'in-3',
      originator: '420777123456',
      body: 'look',
      CreatedDatetime: '2023-07-27T00:49:29+00:00',
      mediaURLs: 'https://m.test/a.jpg',
    }).toString();
    const mmsParsed = parseCall(signedCall('receive', url, mms), channel, settings);
    assert.ok(mmsParsed.ok);
    assert.deepEqual(
      mmsParsed.events.map((e) => (e.kind === 'message' ? [e.externalId, e.content.type] : e.kind)),
      [
        ['in-3', 'file'],
        ['in-3#1', 'text'],
      ],
    );
    const stop = parseCall(
      signedCall('receive', url, new URLSearchParams({ id: 'in-4', originator: '420777123456', body: ' stop ' }).toString()),
      channel,
      settings,
    );
    assert.ok(stop.ok);
    assert.deepEqual(
      stop.events.map((e) => e.kind),
      ['message', 'opt_out'],
    );
  });

  test('a bad or missing signature is refused before anything is read', () => {
    const call = signedCall('status', STATUS_URL);
    assert.equal(parseCall({ ...call, headers: {} }, channel, settings).ok, false);
    assert.equal(parseCall(call, { ...channel, secrets: { ...channel.secrets, signing_key: 'rotated' } }, settings).ok, false);
    const tampered = parseCall({ ...call, url: STATUS_URL.replace('delivered', 'expired') }, channel, settings);
    assert.deepEqual(tampered.ok ? null : tampered.status, 401);
    const noOriginator = parseCall(signedCall('receive', 'https://x.test/v1/inbound/77/receive', 'id=1&body=x'), channel, settings);
    assert.deepEqual(noOriginator.ok ? null : noOriginator.status, 400);
  });
});

describe('mobile: unsigned status reports and repeated fields', () => {
  const token = reportToken(channel)!;
  const unsigned = (url: string): InboundCall => ({ method: 'GET', endpoint: 'status', url, headers: {}, query: {}, rawBody: Buffer.alloc(0) });
  const REPORT = 'id=m9&reference=26&recipient=420777000111&status=delivered&statusDatetime=2026-11-23T09:59:00+00:00';

  test("the channel's report URL carries an unguessable token of the channel and its key", () => {
    assert.match(token, /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(reportToken({ ...channel, id: '78' }), token, 'another channel, another token');
    assert.notEqual(reportToken({ ...channel, secrets: { ...channel.secrets, signing_key: 'rotated' } }), token, 'another key, another token');
    assert.equal(reportToken({ ...channel, secrets: {} }), null);
    assert.equal(reportUrlOf('https://x.test/v1/inbound/77/status', channel), `https://x.test/v1/inbound/77/status?report_token=${token}`);
  });

  test('an unsigned report is taken on the report URL with the token, refused without it or with another', () => {
    const taken = parseCall(unsigned(`https://x.test/v1/inbound/77/status?report_token=${token}&${REPORT}`), channel, settings);
    assert.ok(taken.ok, JSON.stringify(taken));
    const event = taken.events[0];
    assert.ok(event?.kind === 'status');
    assert.deepEqual(event.report, { messageExternalId: 'm9', messageReference: '26', status: 'delivered', final: true });
    for (const url of [
      `https://x.test/v1/inbound/77/status?${REPORT}`,
      `https://x.test/v1/inbound/77/status?report_token=${token.slice(0, -1)}A&${REPORT}`,
      `https://x.test/v1/inbound/77/status?report_token=&${REPORT}`,
    ]) {
      const refused = parseCall(unsigned(url), channel, settings);
      assert.deepEqual(refused.ok ? null : refused.status, 401, url);
    }
    // The token of another channel does not open this one.
    const other = reportToken({ ...channel, id: '78' })!;
    const crossed = parseCall(unsigned(`https://x.test/v1/inbound/77/status?report_token=${other}&${REPORT}`), channel, settings);
    assert.equal(crossed.ok, false);
    // A channel without a signing key has no token: nothing unsigned passes.
    const keyless = parseCall(unsigned(`https://x.test/v1/inbound/77/status?report_token=${token}&${REPORT}`), { ...channel, secrets: {} }, settings);
    assert.equal(keyless.ok, false);
  });

  test('a signed report is checked by its signature, token or not; an inbound SMS always needs one', () => {
    const url = `https://x.test/v1/inbound/77/status?report_token=${token}&${REPORT}`;
    assert.equal(parseCall(signedCall('status', url), channel, settings).ok, true);
    assert.equal(parseCall(signedCall('status', `https://x.test/v1/inbound/77/status?${REPORT}`), channel, settings).ok, true);
    // A wrong signature is not saved by a right token.
    const badSig = { ...signedCall('status', url), headers: { [HEADER]: signJwt('another-key', ISSUER, url, '', NOW) } };
    assert.deepEqual(parseCall(badSig, channel, settings).ok, false);
    const form = 'id=s1&originator=420777000111&body=hi';
    const receive: InboundCall = {
      method: 'POST',
      endpoint: 'receive',
      url: `https://x.test/v1/inbound/77/receive?report_token=${token}`,
      headers: {},
      query: {},
      rawBody: Buffer.from(form),
    };
    assert.deepEqual(parseCall(receive, channel, settings).ok, false);
  });

  test('a field given twice counts as its first value, in the form and in the query', () => {
    const body = 'id=first-id&originator=420777000111&body=first%20text&id=second-id&body=second%20text&originator=420777999999';
    const parsed = parseCall(signedCall('receive', 'https://x.test/v1/inbound/77/receive', body), channel, settings);
    assert.ok(parsed.ok);
    const message = parsed.events[0];
    assert.ok(message?.kind === 'message');
    assert.equal(message.externalId, 'first-id');
    assert.deepEqual(message.content, { type: 'text', text: 'first text', matchQuickReplies: true });
    assert.deepEqual(message.user, { phoneNumber: '420777000111' });
    const url = `https://x.test/v1/inbound/77/status?id=m1&status=delivered&id=m2&status=expired&recipient=420777000111`;
    const report = parseCall(signedCall('status', url), channel, settings);
    assert.ok(report.ok);
    const status = report.events[0];
    assert.ok(status?.kind === 'status');
    assert.deepEqual([status.report.messageExternalId, status.report.status], ['m1', 'delivered']);
  });
});

describe('mobile: rendering and failures', () => {
  const recipient: Recipient = { id: '5', externalId: null, phoneNumber: '+420777123456', userRef: null, email: null, name: null };
  const render = (content: Content, ttlMs?: number) =>
    renderMessage(channel, recipient, { id: '123456789', content, ...(ttlMs === undefined ? {} : { ttlMs }) }, 'https://api.example.test/v1/inbound/77/status');

  test('one SMS: sender id, E.164 digits, the text, our id as reference, auto data coding, the status URL', () => {
    const out = render({ type: 'text', payload: 'Hello 😀' });
    assert.deepEqual(out, {
      ok: true,
      value: {
        originator: '420601000111',
        recipients: ['420777123456'],
        body: 'Hello 😀',
        reference: '123456789',
        reportUrl: 'https://api.example.test/v1/inbound/77/status',
        datacoding: 'auto',
      },
    });
    assert.equal(originatorOf('Shop'), 'Shop');
    const media = render(
      { type: 'image', payload: { url: 'https://cdn.test/p.png' }, quick_replies: [{ type: 'text', title: 'Yes', payload: 'Y' }] } as Content,
      3_600_500,
    );
    assert.ok(media.ok);
    assert.equal(media.value.body, 'https://cdn.test/p.png\n1. Yes');
    assert.equal(media.value.validity, 3601);
    const location = render({ type: 'location', payload: { latitude: 1, longitude: 2 } });
    assert.deepEqual(location.ok ? null : [location.retryable, location.code], [false, 'unsupported']);
    const nobody = renderMessage(channel, { ...recipient, phoneNumber: null }, { id: '1', content: { type: 'text', payload: 'x' } }, 'u');
    assert.deepEqual(nobody.ok ? null : nobody.code, 'no_recipient');
  });

  test('failures: 429 with Retry-After, 5xx retryable, refused key, a bad number among other errors', () => {
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
      status,
      headers: new Headers(headers),
      text: JSON.stringify(body),
    });
    const limited = providerFailure(answer(429, { errors: [{ code: 99, description: 'Too many requests', parameter: null }] }, { 'retry-after': '7' }), NOW);
    assert.deepEqual(limited, { ok: false, retryable: true, code: 'rate_limited', message: 'Too many requests', retryAfterMs: 7000 });
    assert.equal(retryAfterMs(new Date(NOW + 3000).toUTCString(), NOW), 3000);
    assert.deepEqual(providerFailure(answer(500, { errors: [{ code: 99, description: 'internal error' }] }), NOW).retryable, true);
    const key = providerFailure(
      answer(401, { errors: [{ code: 2, description: 'Request not allowed (incorrect access_key)', parameter: 'access_key' }] }),
      NOW,
    );
    assert.deepEqual([key.retryable, key.code], [false, '2']);
    // The bad number is not the first error: every error is read.
    const bad = providerFailure(
      answer(422, {
        errors: [
          { code: 10, description: 'originator is invalid', parameter: 'originator' },
          { code: 9, description: 'no (correct) recipients found', parameter: 'recipients' },
        ],
      }),
      NOW,
    );
    assert.deepEqual([bad.retryable, bad.code, bad.message], [false, 'no_recipient', 'originator is invalid; no (correct) recipients found']);
  });
});
