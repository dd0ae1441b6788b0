import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ConnectorRegistry, defineConnector, type InboundCall, type InboundParse } from '../../src/connectors/connector.js';

/**
 * The inbound half of the contract through the whole service, with a connector written for the
 * test in the shape the asynchronous platforms need: a channel URL with declared endpoints (a
 * status report by GET, a received message by POST), a signature over the full URL, a file that
 * arrives in the body, status reports and opt-outs (answered, logged, not stored yet).
 */
const sign = (key: string, url: string) => createHmac('sha256', key).update(url).digest('hex');

function signedByUrl(call: InboundCall, key: string | undefined): boolean {
  const given = call.headers['x-test-signature'];
  if (!key || given === undefined) return false;
  const a = Buffer.from(sign(key, call.url));
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

const urlSigned = defineConnector('mobile', {
  channelInbound: {
    endpoints: [
      { name: 'status', methods: ['GET'] },
      { name: 'receive', methods: ['POST'] },
    ],
    parse(call, channel): InboundParse {
      if (!signedByUrl(call, channel.secrets.signing_key)) return { ok: false, status: 401, message: 'bad signature' };
      const reply = { contentType: 'text/plain', body: 'OK' };
      if (call.endpoint === 'status') {
        const user = { externalId: call.query.recipient ?? '', phoneNumber: call.query.recipient ?? '' };
        const report = { messageExternalId: call.query.id ?? '', status: 'delivered' as const, final: true };
        const events: InboundParse & { ok: true } = { ok: true, events: [{ kind: 'status', user, at: null, report }], reply };
        if (call.query.statusErrorCode === '103') events.events.push({ kind: 'opt_out', user, at: null, reason: 'stop', platformCode: '103' });
        return events;
      }
      const form = new URLSearchParams(call.rawBody.toString('utf8'));
      const from = form.get('originator') ?? '';
      const file = form.get('file');
      return {
        ok: true,
        reply,
        events: [
          {
            kind: 'message',
            externalId: form.get('id') ?? '',
            user: { externalId: from, phoneNumber: from },
            at: null,
            content: file
              ? { type: 'file', media: { bytes: Buffer.from(file, 'base64'), name: 'note.txt', mimeType: 'text/plain' } }
              : { type: 'text', text: form.get('body') ?? '' },
          },
        ],
      };
    },
  },
});

for (const { dialect, skip } of await dialects()) {
  describe(`Inbound contract: declared endpoints, URL signatures, files in the body (${dialect})`, { skip }, () => {
    let s: TestServer;
    let channelId: string;
    const key = 'sms-signing';
    before(async () => {
      s = await startTestServer(dialect, { connectors: new ConnectorRegistry().register(urlSigned) });
      const made = await s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: '+420601000111', access_token: 'sms-token', signing_key: key },
      });
      assert.equal(made.status, 201, made.text);
      channelId = made.body.id;
    });
    after(async () => s?.close());

    const call = async (method: 'GET' | 'POST', path: string, body?: string, signWith = key) => {
      const url = `${s.baseUrl}/inbound/${channelId}/${path}`;
      const res = await fetch(url, {
        method,
        headers: { 'x-test-signature': sign(signWith, url), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body,
      });
      return { status: res.status, text: await res.text() };
    };

    test('a received message with a file in the body is stored with the file re-hosted, and answered as the connector says', async () => {
      const bytes = Buffer.from(`a note ${dialect} ${Date.now()}`);
      const res = await call('POST', 'receive', new URLSearchParams({ id: 'in-1', originator: '+420777123456', file: bytes.toString('base64') }).toString());
      assert.deepEqual(res, { status: 200, text: 'OK' });
      const contacts = await s.api.get(`/v1/channels/${channelId}/contacts`);
      assert.equal(contacts.body.length, 1, contacts.text);
      const messages = await s.api.get(`/v1/channels/${channelId}/contacts/${contacts.body[0].id}/messages`);
      const content = messages.body[0].content;
      assert.equal(content.type, 'file');
      assert.match(content.payload.url, /\/files\/.+\/note\.txt$/);
      const served = await fetch(content.payload.url);
      assert.equal(served.status, 200);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);
    });

    test('a status report by GET is checked on the full URL, answered 200, and stores nothing yet', async () => {
      const query = 'id=ext-1&recipient=%2B420777123456&status=delivered&statusErrorCode=103&statusDatetime=2026-11-23T10:00:00+00:00';
      assert.deepEqual(await call('GET', `status?${query}`), { status: 200, text: 'OK' });
      const before = (await s.api.get(`/v1/channels/${channelId}/contacts`)).body.length;
      // The signature covers the query: a changed query is refused like an unknown channel.
      const url = `${s.baseUrl}/inbound/${channelId}/status?${query}`;
      const tampered = await fetch(url.replace('delivered', 'expired'), { headers: { 'x-test-signature': sign(key, url) } });
      assert.equal(tampered.status, 404);
      assert.equal((await s.api.get(`/v1/channels/${channelId}/contacts`)).body.length, before, 'no contact made by a report');
    });

    test('endpoints and methods the connector does not declare, and bad signatures, answer the uniform 404', async () => {
      const expected = { status: 404, text: 'Channel not found.' };
      const message = async (r: Promise<{ status: number; text: string }>) => {
        const got = await r;
        return { status: got.status, text: JSON.parse(got.text).errors[0].message };
      };
      assert.deepEqual(await message(call('POST', 'status?id=1')), expected, 'POST on a GET endpoint');
      assert.deepEqual(await message(call('GET', 'receive')), expected, 'GET on a POST endpoint');
      assert.deepEqual(await message(call('POST', 'other', 'x=1')), expected, 'an endpoint not declared');
      assert.deepEqual(await message(call('GET', 'status?id=1', undefined, 'another-key')), expected, 'another key');
      const unknown = `${s.baseUrl}/inbound/999999999/status?id=1`;
      const res = await fetch(unknown, { headers: { 'x-test-signature': sign(key, unknown) } });
      assert.deepEqual({ status: res.status, text: ((await res.json()) as any).errors[0].message }, expected, 'an unknown channel');
    });
  });
}
