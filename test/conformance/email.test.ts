import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { createEmailConnector, webhookUrls } from '../../src/connectors/email/connector.js';
import { retryAfterOf } from '../../src/connectors/email/api.js';
import { MediaDownloader } from '../../src/connectors/media-download.js';
import type { ChannelContext, InboundCall, InboundParse, Recipient } from '../../src/connectors/connector.js';

/**
 * The email connector against the mail provider's public reference, without the stand-in: every
 * call below is shaped as a public source shows it, transcribed as facts (the source is named in a
 * comment). Inbound calls go through the connector's verifier and parser, and through the HTTP
 * route of a running service; outbound requests are captured by a bare HTTP server that answers
 * as the reference's examples do, and compared with the reference's example requests.
 * docs/platform-conformance.md (## email) lists each element with its source and confidence.
 */

// The provider's official PHP SDK, webhook signature tests: the key, a signed timestamp and token,
// the signature; and a "bad" token that must not verify under the same signature.
const VECTOR = {
  key: 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0',
  timestamp: '1403645220',
  token: '5egbgr1vjgqxtrnp65xfznchgdccwh5d6i09vijqi3whgowmn6',
  signature: '9cfc5c41582e51246e73c88d34db3af0a3a2692a76fbab81492842f000256d33',
  badToken: 'owyldpe6nxhmrn78epljl6bj0orrki1u3d2v5e6cnlmmuox8jr',
};
const AT_VECTOR = Number(VECTOR.timestamp) * 1000 + 60_000;

/** Event payloads: the provider's documented `delivered` example, and third-party webhook tests that mirror its traffic. */
const EVENTS = {
  // The provider's webhook documentation, `delivered` example (event-data).
  delivered: {
    id: 'CPgfbmQMTCKtHW6uIWtuVe',
    timestamp: 1521472262.908181,
    'log-level': 'info',
    event: 'delivered',
    recipient: 'alice@example.com',
    'recipient-domain': 'example.com',
    'delivery-status': { tls: true, 'mx-host': 'smtp-in.example.com', code: 250, description: '', 'session-seconds': 0.43, 'attempt-no': 1, message: 'OK' },
    flags: { 'is-routed': false, 'is-authenticated': true, 'is-test-mode': false },
    envelope: { transport: 'smtp', sender: 'bob@mail.example.com', 'sending-ip': '209.61.154.250', targets: 'alice@example.com' },
    message: {
      headers: {
        to: 'Alice <alice@example.com>',
        'message-id': '20130503182626.18666.16540@mail.example.com',
        from: 'Bob <bob@mail.example.com>',
        subject: 'Test',
      },
      attachments: [],
      size: 111,
    },
    tags: ['my_tag'],
    'user-variables': { my_var: 'x' },
  },
  // A third-party mail library's webhook tests (recorded payloads): a hard bounce.
  bounced: {
    event: 'failed',
    severity: 'permanent',
    reason: 'bounce',
    recipient: 'invalid@example.com',
    timestamp: 1534110422.389832,
    'log-level': 'error',
    message: { headers: { to: 'invalid@example.com', 'message-id': '20180812214658.1.0DF563D0B3597700@example.org', from: 'Test Sender ' } },
    'delivery-status': {
      tls: true,
      'mx-host': 'aspmx.l.example.org',
      'attempt-no': 1,
      description: '',
      'session-seconds': 2.952177047729492,
      utf8: true,
      code: 550,
      message: '5.1.1 The email account that you tried to reach does not exist.',
    },
  },
  // Third-party recorded payloads: an address the provider suppresses after an earlier bounce (code 605).
  suppressed: {
    id: 'suppressed-event-1',
    timestamp: 1521472262.908181,
    'log-level': 'error',
    event: 'failed',
    severity: 'permanent',
    reason: 'suppress-bounce',
    recipient: 'alice@example.com',
    'delivery-status': {
      'attempt-no': 1,
      message: '',
      code: 605,
      'enhanced-code': '',
      description: 'Not delivering to previously bounced address',
      'session-seconds': 0,
    },
    message: { headers: { to: 'Alice <alice@example.com>', 'message-id': '20130503192659.13651.20287@mail.example.com', from: 'Bob <bob@mail.example.com>' } },
  },
  // Third-party recorded payloads: a temporary failure the provider retries.
  deferred: {
    event: 'failed',
    severity: 'temporary',
    reason: 'generic',
    timestamp: 1534111899.659519,
    'log-level': 'warn',
    message: { headers: { to: 'undeliverable@nomx.example.com', 'message-id': '20180812214638.1.4A7D468E9BC18C5D@example.org', subject: 'Testing' } },
    recipient: 'undeliverable@nomx.example.com',
    'delivery-status': {
      'attempt-no': 3,
      description: 'No MX for nomx.example.com',
      'session-seconds': 0.0,
      'retry-seconds': 1800,
      code: 498,
      message: 'No MX for nomx.example.com',
    },
  },
  complained: {
    event: 'complained',
    id: 'ncV2XwymRUKbPek_MIM-Gw',
    timestamp: 1377214260.049634,
    'log-level': 'warn',
    recipient: 'recipient@example.com',
    message: { headers: { to: 'foo@recipient.com', 'message-id': '20130718032413.263EE2E0926@example.org', from: 'Sender Name <sender@example.org>' } },
  },
  unsubscribed: {
    event: 'unsubscribed',
    id: 'W3X4JOhFT-OZidZGKKr9iA',
    timestamp: 1377213791.421473,
    'log-level': 'info',
    recipient: 'recipient@example.com',
    message: { headers: { 'message-id': '20130822232216.13966.79700@samples.example.org' } },
  },
  // Opens carry only the message-id header.
  opened: {
    event: 'opened',
    timestamp: 1534109600.089676,
    recipient: 'recipient@example.com',
    tags: ['welcome'],
    'user-variables': { cohort: '2018-08-B' },
    message: { headers: { 'message-id': '20180812213139.1.BC6694A917BB7E6A@example.org' } },
    ip: '203.0.113.7',
    'client-info': { 'client-type': 'browser', 'client-os': 'OS X', 'device-type': 'desktop', 'client-name': 'Chrome' },
  },
  clicked: { event: 'clicked', timestamp: 1534109600.089676, recipient: 'recipient@example.com', url: 'https://example.com/test' },
};

/**
 * A forwarded mail as the provider's inbound routing documentation lists its fields (urlencoded;
 * multipart with `attachment-1..n` when files come along). `message-headers` is a JSON list of
 * [name, value] pairs, and a value may itself be a list (a third-party library's tests show
 * `Content-Type` as [type, params]).
 */
function forwardedMail(signature: { timestamp: string; token: string; signature: string }): Array<[string, string]> {
  return [
    ['recipient', 'support@mg.example.com'],
    ['sender', 'bob@example.com'],
    ['from', 'Bob Smith <bob@example.com>'],
    ['subject', 'Re: Sample POST request'],
    ['body-plain', 'Hi Alice,\n\nThis is Bob.\n\nOn Sat, Dec 1, Alice wrote:\n> Hello\n\n--\nBob'],
    ['stripped-text', 'Hi Alice,\n\nThis is Bob.'],
    ['stripped-signature', 'Bob'],
    ['body-html', '<html><body><p>Hi Alice,</p></body></html>'],
    ['stripped-html', '<p>Hi Alice,</p>'],
    ['attachment-count', '0'],
    [
      'message-headers',
      JSON.stringify([
        ['Received', 'by mail.example.com'],
        ['From', 'Bob Smith <bob@example.com>'],
        ['To', 'Support <support@mg.example.com>'],
        ['Subject', 'Re: Sample POST request'],
        ['Message-Id', '<517ACC75.5010709@example.com>'],
        ['In-Reply-To', '<20130503182626.18666.16540@mail.example.com>'],
        ['Content-Type', ['multipart/alternative', { boundary: '0014' }]],
      ]),
    ],
    ['content-id-map', '{}'],
    ['timestamp', signature.timestamp],
    ['token', signature.token],
    ['signature', signature.signature],
  ];
}

const signedVector = { timestamp: VECTOR.timestamp, token: VECTOR.token, signature: VECTOR.signature };

function sign(key: string, timestamp: string, token: string, algorithm = 'sha256') {
  return {
    timestamp,
    token,
    signature: createHmac(algorithm, key)
      .update(timestamp + token)
      .digest('hex'),
  };
}

function connectorAt(now: number, baseUrl = 'http://127.0.0.1:9') {
  return createEmailConnector({
    apiUrls: { us: baseUrl, eu: baseUrl },
    timeoutMs: 2000,
    inboundUrl: (id, endpoint) => `https://parley.example.com/v1/inbound/${id}/${endpoint}`,
    signatureMaxAgeMs: 12 * 3600_000,
    media: new MediaDownloader({ allowlist: [] }),
    maxAttachmentBytes: 1024,
    now: () => now,
  });
}

const CHANNEL: ChannelContext = {
  id: '7',
  type: 'email',
  mode: 'production',
  config: { sender: { email: 'support@mg.example.com', name: 'Support' }, domain: 'mg.example.com', region: 'us', open_tracking: true },
  secrets: { access_token: 'key-private', webhook_signing_key: VECTOR.key },
};

function call(endpoint: string, contentType: string, body: string): InboundCall {
  return { method: 'POST', endpoint, url: '', headers: { 'content-type': contentType }, query: {}, rawBody: Buffer.from(body) };
}

const eventCall = (signature: object, data: object) => call('events', 'application/json', JSON.stringify({ signature, 'event-data': data }));

function parsed(result: InboundParse): Extract<InboundParse, { ok: true }> {
  assert.ok(result.ok, JSON.stringify(result));
  return result;
}

describe('email conformance: signatures (the official SDK vectors)', () => {
  const inbound = connectorAt(AT_VECTOR).roles.channelInbound!;

  test('the reference vector verifies; the bad token, a tampered signature and an empty one do not', () => {
    const ok = parsed(inbound.parse(eventCall(signedVector, EVENTS.delivered), CHANNEL));
    assert.ok(ok.binding, 'a verified call binds its body to the signature');
    assert.equal(inbound.parse(eventCall({ ...signedVector, token: VECTOR.badToken }, EVENTS.delivered), CHANNEL).ok, false);
    const tampered = VECTOR.signature.slice(0, -1) + (VECTOR.signature.endsWith('3') ? '4' : '3');
    assert.equal(inbound.parse(eventCall({ ...signedVector, signature: tampered }, EVENTS.delivered), CHANNEL).ok, false);
    assert.equal(inbound.parse(eventCall({ timestamp: '', token: '', signature: '' }, EVENTS.delivered), CHANNEL).ok, false);
    assert.equal(inbound.parse(eventCall(signedVector, EVENTS.delivered), { ...CHANNEL, secrets: { access_token: 'k' } }).ok, false, 'no key: refused');
  });

  test('HMAC-SHA256 in lower-case hex is the only algorithm the reference allows; upper-case hex is the same digest', () => {
    assert.equal(parsed(inbound.parse(eventCall({ ...signedVector, signature: VECTOR.signature.toUpperCase() }, EVENTS.delivered), CHANNEL)).ok, true);
    for (const algorithm of ['sha1', 'sha512', 'md5']) {
      const other = sign(VECTOR.key, VECTOR.timestamp, VECTOR.token, algorithm);
      assert.equal(inbound.parse(eventCall(other, EVENTS.delivered), CHANNEL).ok, false, algorithm);
    }
  });

  test('timestamps: hours old is a retry (accepted), past the window or well ahead is refused', () => {
    const window = 12 * 3600_000;
    const late = connectorAt(Number(VECTOR.timestamp) * 1000 + window - 1000).roles.channelInbound!;
    assert.equal(late.parse(eventCall(signedVector, EVENTS.delivered), CHANNEL).ok, true);
    const expired = connectorAt(Number(VECTOR.timestamp) * 1000 + window + 1000).roles.channelInbound!;
    assert.equal(expired.parse(eventCall(signedVector, EVENTS.delivered), CHANNEL).ok, false);
    const early = connectorAt(Number(VECTOR.timestamp) * 1000 - 6 * 60_000).roles.channelInbound!;
    assert.equal(early.parse(eventCall(signedVector, EVENTS.delivered), CHANNEL).ok, false, 'more than 5 minutes ahead');
  });

  test('a replayed signature over another body names the same binding with another digest (the store refuses it)', () => {
    const first = parsed(inbound.parse(eventCall(signedVector, EVENTS.delivered), CHANNEL));
    const replay = parsed(inbound.parse(eventCall(signedVector, EVENTS.bounced), CHANNEL));
    assert.equal(replay.binding?.key, first.binding?.key);
    assert.notEqual(replay.binding?.bodyDigest, first.binding?.bodyDigest);
    const again = parsed(inbound.parse(eventCall(signedVector, EVENTS.delivered), CHANNEL));
    assert.equal(again.binding?.bodyDigest, first.binding?.bodyDigest, 'the same body again: the provider retrying');
  });
});

describe('email conformance: each event kind', () => {
  const inbound = connectorAt(AT_VECTOR).roles.channelInbound!;
  const eventsOf = (data: object, channel = CHANNEL) => parsed(inbound.parse(eventCall(signedVector, data), channel)).events;

  test('delivered → a final delivered status, keyed by the event id, naming the message without brackets', () => {
    assert.deepEqual(eventsOf(EVENTS.delivered), [
      {
        kind: 'status',
        user: { email: 'alice@example.com' },
        at: 1521472262908,
        eventKey: 'CPgfbmQMTCKtHW6uIWtuVe',
        report: { messageExternalId: '20130503182626.18666.16540@mail.example.com', status: 'delivered', final: true },
      },
    ]);
  });

  test('failed permanent → failed with reason/code (bounce 550, suppress-bounce 605); temporary → nothing', () => {
    const [bounce] = eventsOf(EVENTS.bounced);
    assert.equal(bounce?.kind, 'status');
    assert.deepEqual(bounce?.kind === 'status' && bounce.report, {
      messageExternalId: '20180812214658.1.0DF563D0B3597700@example.org',
      status: 'failed',
      final: true,
      platformCode: 'bounce/550',
      reason: '5.1.1 The email account that you tried to reach does not exist.',
    });
    const [suppressed] = eventsOf(EVENTS.suppressed);
    assert.deepEqual(suppressed?.kind === 'status' && [suppressed.report.platformCode, suppressed.report.reason], [
      'suppress-bounce/605',
      'Not delivering to previously bounced address',
    ]);
    assert.deepEqual(eventsOf(EVENTS.deferred), []);
  });

  test('opened → read up to the message when the channel tracks opens, else nothing; complained, unsubscribed, clicked → answered, nothing', () => {
    assert.deepEqual(eventsOf(EVENTS.opened), [
      {
        kind: 'read',
        user: { email: 'recipient@example.com' },
        at: 1534109600090,
        watermark: 1534109600090,
        messageExternalId: '20180812213139.1.BC6694A917BB7E6A@example.org',
      },
    ]);
    assert.deepEqual(eventsOf(EVENTS.opened, { ...CHANNEL, config: { ...CHANNEL.config, open_tracking: false } }), []);
    for (const kind of ['complained', 'unsubscribed', 'clicked'] as const) assert.deepEqual(eventsOf(EVENTS[kind]), [], kind);
  });

  test('the forwarded mail form → a message from the From address: stripped text, subject, recipients, its Message-Id', () => {
    const body = new URLSearchParams(forwardedMail(signedVector)).toString();
    const result = parsed(inbound.parse(call('mail', 'application/x-www-form-urlencoded', body), CHANNEL));
    assert.deepEqual(result.events, [
      {
        kind: 'message',
        user: { email: 'bob@example.com', name: 'Bob Smith' },
        at: Number(VECTOR.timestamp) * 1000,
        externalId: '517ACC75.5010709@example.com',
        content: { type: 'text', text: 'Hi Alice,\n\nThis is Bob.', matchQuickReplies: true },
        metadata: { email: { subject: 'Re: Sample POST request', to: [{ email: 'support@mg.example.com', name: 'Support' }] } },
      },
    ]);
  });
});

/** What the bare capture server saw of one request. */
interface Captured {
  method: string;
  path: string;
  authorization: string;
  contentType: string;
  fields: Array<[string, string]>;
  raw: string;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A bare HTTP server answering as the reference's examples do, recording each request. */
async function captureServer(): Promise<{ url: string; requests: Captured[]; server: Server; webhooks: Map<string, string[]> }> {
  const requests: Captured[] = [];
  const webhooks = new Map<string, string[]>();
  const server = createServer((req, res) => {
    void (async () => {
      const text = await bodyOf(req);
      const contentType = req.headers['content-type'] ?? '';
      const fields = contentType.startsWith('application/x-www-form-urlencoded') ? [...new URLSearchParams(text)] : [];
      const path = req.url ?? '';
      requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization ?? '', contentType, fields, raw: text });
      if (req.method === 'GET' && path === '/files/invoice.pdf') {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        return res.end('%PDF-1.4 sample');
      }
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const hook = /^\/v3\/domains\/[^/]+\/webhooks\/([a-z_]+)$/.exec(path)?.[1];
      if (req.method === 'POST' && /^\/v3\/[^/]+\/messages$/.test(path))
        return json(200, { id: '<20111114174239.25659.5817@samples.example.org>', message: 'Queued. Thank you.' });
      if (req.method === 'GET' && path === '/v5/accounts/http_signing_key') return json(200, { http_signing_key: VECTOR.key });
      if (req.method === 'GET' && /^\/v3\/domains\/[^/]+\/webhooks$/.test(path)) return json(200, { webhooks: {} });
      if (req.method === 'GET' && path.startsWith('/v3/routes')) return json(200, { total_count: 0, items: [] });
      if (req.method === 'POST' && path === '/v3/routes')
        return json(200, { message: 'Route has been created', route: { id: '4f3bad2335335426750048c6', priority: 0 } });
      // A webhook already there, read back in the single-url form (the official SDK's tests show it).
      if (req.method === 'GET' && hook)
        return webhooks.has(hook) ? json(200, { webhook: { url: webhooks.get(hook)![0] } }) : json(404, { message: 'Webhook not found' });
      if ((req.method === 'PUT' && hook) || (req.method === 'POST' && /\/webhooks$/.test(path))) {
        const id = hook ?? fields.find(([k]) => k === 'id')?.[1] ?? '';
        webhooks.set(
          id,
          fields.filter(([k]) => k === 'url').map(([, v]) => v),
        );
        return json(200, { message: 'Webhook has been created', webhook: { urls: webhooks.get(id) } });
      }
      json(404, { message: 'Not Found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server, webhooks };
}

/** A file the service re-hosted, on a connection of its own (not kept alive past the test). */
function download(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** Kept-alive connections of the service's HTTP client are cut, so closing does not wait for them. */
function stop(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The send fields the reference lists (`POST /v3/{domain}/messages`): the connector sends no other. */
const SEND_FIELDS = /^(from|to|cc|bcc|subject|text|html|amp-html|attachment|inline|template|t:variables|o:[a-z-]+|h:[A-Za-z-]+|v:[A-Za-z0-9_-]+)$/;

describe('email conformance: outbound requests against the reference examples', () => {
  let capture: Awaited<ReturnType<typeof captureServer>>;
  before(async () => {
    capture = await captureServer();
  });
  after(() => stop(capture.server));

  test('a send is the documented form post: Basic api:<key>, from/to/subject/text, options yes/no; the answer id kept without brackets', async () => {
    const connector = connectorAt(Date.now(), capture.url);
    const to: Recipient = { id: '1', externalId: null, phoneNumber: null, userRef: null, email: 'bar@example.com', name: null };
    const sent = await connector.roles.sender!.send(CHANNEL, to, {
      id: '99',
      content: { type: 'text', payload: 'Testing some awesomeness!' },
      metadata: { email: { subject: 'Hello' } },
      conversation: [{ externalId: '517ACC75.5010709@example.com', direction: 'received' }],
    });
    assert.deepEqual(sent, { ok: true, value: { externalIds: ['20111114174239.25659.5817@samples.example.org'] } });
    const request = capture.requests.at(-1)!;
    // The reference's example: curl --user 'api:KEY' .../v3/DOMAIN/messages -F from='Excited User <…>' -F to=… -F subject='Hello' -F text='Testing some …'
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v3/mg.example.com/messages');
    assert.equal(request.authorization, `Basic ${Buffer.from('api:key-private').toString('base64')}`);
    assert.match(request.contentType, /^application\/x-www-form-urlencoded/);
    const field = (name: string) => request.fields.filter(([k]) => k === name).map(([, v]) => v);
    assert.deepEqual(field('from'), ['Support <support@mg.example.com>']);
    assert.deepEqual(field('to'), ['bar@example.com']);
    assert.deepEqual(field('subject'), ['Hello']);
    assert.deepEqual(field('text'), ['Testing some awesomeness!']);
    assert.deepEqual(field('o:tracking-opens'), ['yes'], 'booleans are yes/no');
    assert.deepEqual(field('h:In-Reply-To'), ['<517ACC75.5010709@example.com>']);
    assert.deepEqual(field('v:parley-message-id'), ['99'], 'echoed in events as user-variables');
    for (const [name] of request.fields) assert.match(name, SEND_FIELDS, `${name} is a field the reference lists`);
  });

  test('a send with a file is the documented multipart post: the file under `attachment` with its name and type', async () => {
    const connector = createEmailConnector({
      apiUrls: { us: capture.url, eu: capture.url },
      timeoutMs: 2000,
      inboundUrl: (id, endpoint) => `https://parley.example.com/v1/inbound/${id}/${endpoint}`,
      signatureMaxAgeMs: 12 * 3600_000,
      media: new MediaDownloader({ allowlist: [new URL(capture.url).host] }),
      maxAttachmentBytes: 1024,
      now: () => Date.now(),
    });
    const to: Recipient = { id: '1', externalId: null, phoneNumber: null, userRef: null, email: 'bar@example.com', name: null };
    const sent = await connector.roles.sender!.send(CHANNEL, to, {
      id: '100',
      content: { type: 'file', payload: { url: `${capture.url}/files/invoice.pdf` } },
    });
    assert.ok(sent.ok, JSON.stringify(sent));
    const request = capture.requests.filter((r) => r.path === '/v3/mg.example.com/messages').at(-1)!;
    // The reference's example: … -F attachment=@files/test.jpg (multipart/form-data, the field repeatable).
    assert.match(request.contentType, /^multipart\/form-data; boundary=/);
    assert.match(
      request.raw,
      /Content-Disposition: form-data; name="attachment"; filename="invoice\.pdf"\r\nContent-Type: application\/pdf\r\n\r\n%PDF-1\.4 sample\r\n/,
    );
    for (const name of request.raw.matchAll(/Content-Disposition: form-data; name="([^"]+)"/g)) assert.match(name[1]!, SEND_FIELDS);
  });

  test('create: the route and the webhooks as documented; a webhook read in the single-url form keeps its URL; the signing key read from /v5', async () => {
    capture.webhooks.set('delivered', ['https://crm.example.com/hook']);
    const connector = connectorAt(Date.now(), capture.url);
    const input = { type: 'email' as const, config: CHANNEL.config, secrets: { access_token: 'key-private' } };
    const verified = await connector.roles.verifier!.verifyChannel(input);
    assert.deepEqual(verified, { ok: true, value: { config: {}, secrets: { webhook_signing_key: VECTOR.key } } });
    const registered = await connector.roles.registrar!.registerChannel({ ...CHANNEL, secrets: { access_token: 'key-private' } }, null);
    assert.deepEqual(registered, { ok: true, value: null });
    const route = capture.requests.find((r) => r.method === 'POST' && r.path === '/v3/routes');
    assert.deepEqual(route?.fields, [
      ['priority', '0'],
      ['description', 'parley channel 7'],
      ['expression', 'match_recipient("^support@mg\\.example\\.com$")'],
      ['action', 'forward("https://parley.example.com/v1/inbound/7/mail")'],
    ]);
    const events = 'https://parley.example.com/v1/inbound/7/events';
    assert.deepEqual(capture.webhooks.get('delivered'), ['https://crm.example.com/hook', events]);
    const created = capture.requests.find((r) => r.method === 'POST' && r.path === '/v3/domains/mg.example.com/webhooks');
    assert.deepEqual(created?.fields, [
      ['id', 'permanent_fail'],
      ['url', events],
    ]);
    assert.deepEqual(webhookUrls({ webhook: { urls: ['a', 'b'] } }), ['a', 'b']);
    assert.deepEqual(webhookUrls({ webhook: { url: 'a' } }), ['a']);
  });

  test("a 429's message names when to try again (RFC 1123 date)", () => {
    const now = Date.parse('Tue, 24 Nov 2026 03:00:00 GMT');
    assert.equal(retryAfterOf('Rate limit exceeded for messages; try again after Tue, 24 Nov 2026 03:00:30 GMT', null, now), 30_000);
  });
});

for (const { dialect, skip } of await dialects()) {
  describe(`email conformance through the HTTP route (${dialect})`, { skip }, () => {
    let capture: Awaited<ReturnType<typeof captureServer>>;
    let s: TestServer;
    let channelId: string;
    const now = () => String(Math.floor(Date.now() / 1000));
    before(async () => {
      capture = await captureServer();
      s = await startTestServer(dialect, { env: { MAILPROVIDER_API_URL: capture.url, PLATFORM_TIMEOUT_MS: '3000' } });
      const res = await s.api.post('/v1/channels', {
        type: 'email',
        name: 'Support',
        provider: { type: 'mailprovider', access_token: 'key-private', sender: { email: 'support@mg.example.com', name: 'Support' } },
      });
      assert.equal(res.status, 201, res.text);
      channelId = res.body.id;
    });
    after(async () => {
      await s?.close();
      await stop(capture.server);
    });

    const post = (endpoint: string, contentType: string, body: string) =>
      fetch(`${s.baseUrl}/inbound/${channelId}/${endpoint}`, { method: 'POST', headers: { 'content-type': contentType }, body });

    test('events: signed as the reference signs them, answered 200; tampered, unsigned and replayed over another body: the uniform 404', async () => {
      const signature = sign(VECTOR.key, now(), 'a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0');
      const body = JSON.stringify({ signature, 'event-data': EVENTS.delivered });
      assert.equal((await post('events', 'application/json', body)).status, 200);
      assert.equal((await post('events', 'application/json', body)).status, 200, 'the same body again: the provider retrying');
      const forged = JSON.stringify({ signature, 'event-data': EVENTS.bounced });
      assert.equal((await post('events', 'application/json', forged)).status, 404);
      const tampered = JSON.stringify({
        signature: { ...signature, signature: signature.signature.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) },
        'event-data': EVENTS.delivered,
      });
      assert.equal((await post('events', 'application/json', tampered)).status, 404);
      assert.equal((await post('events', 'application/json', JSON.stringify({ 'event-data': EVENTS.delivered }))).status, 404);
    });

    test('the forwarded mail, urlencoded and multipart with an attachment: stored as the contact wrote it', async () => {
      const form = forwardedMail(sign(VECTOR.key, now(), 'b'.repeat(50)));
      const res = await post('mail', 'application/x-www-form-urlencoded', new URLSearchParams(form).toString());
      assert.equal(res.status, 200, await res.text());
      const multipart = new FormData();
      const withFile = forwardedMail(sign(VECTOR.key, now(), 'c'.repeat(50))).map(([k, v]): [string, string] =>
        k === 'attachment-count' ? [k, '1'] : k === 'message-headers' ? [k, v.replace('517ACC75', '617ACC75')] : [k, v],
      );
      for (const [k, v] of withFile) multipart.append(k, v);
      multipart.append('attachment-1', new Blob([Buffer.from('%PDF-1.4 sample')], { type: 'application/pdf' }), 'invoice.pdf');
      const sent = await fetch(`${s.baseUrl}/inbound/${channelId}/mail`, { method: 'POST', body: multipart });
      assert.equal(sent.status, 200, await sent.text());
      const contacts = await s.api.get(`/v1/channels/${channelId}/contacts`);
      assert.equal(contacts.body[0].email, 'bob@example.com');
      const messages = (await s.api.get(`/v1/channels/${channelId}/contacts/${contacts.body[0].id}/messages`)).body as any[];
      assert.deepEqual(messages.map((m) => m.content.type).sort(), ['file', 'text', 'text']);
      const file = messages.find((m) => m.content.type === 'file');
      assert.equal(await download(file.content.payload.url), '%PDF-1.4 sample');
    });
  });
}
