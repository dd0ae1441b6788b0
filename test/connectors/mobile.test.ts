import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import { createMobileConnector } from '../../src/connectors/mobile/connector.js';
import { reportUrlOf } from '../../src/connectors/mobile/status-url.js';
import type { ChannelContext, Recipient } from '../../src/connectors/connector.js';
import { http, type JsonAnswer } from './helpers/harness.js';
import { eventually } from '../helpers/waits.js';

const ACCESS_KEY = 'live_mobileconnectortestkey01';
const SIGNING_KEY = 'provider-signing-key-of-the-account';
const SENDER = '+420601000111';

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['an inbound SMS becomes message_received with the contact made by its number'] })) {
  describe(`mobile connector over real HTTP (${dialect})`, { skip }, () => {
    let s: TestServer;
    let sms: ReturnType<typeof createSmsproviderStandIn>;
    let smsBase: string;
    const hooks: WebhookReceiver[] = [];
    const sandbox = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<JsonAnswer> =>
      http(method, `${smsBase}/_sandbox${path}`, body);

    before(async () => {
      sms = createSmsproviderStandIn({ accessKey: ACCESS_KEY, signingKey: SIGNING_KEY });
      smsBase = await sms.listen(0);
      s = await startTestServer(dialect, {
        workers: true,
        env: { SMSPROVIDER_API_URL: smsBase, PLATFORM_TIMEOUT_MS: '1500', WEBHOOK_RETRY_SCHEDULE: '1,1,1' },
      });
    });
    after(async () => {
      await s?.close();
      await Promise.allSettled([sms?.close(), ...hooks.map((h) => h.close())]);
    });

    const provider = (extra: Record<string, unknown> = {}) => ({
      type: 'smsprovider',
      sender_id: SENDER,
      access_token: ACCESS_KEY,
      signing_key: SIGNING_KEY,
      ...extra,
    });

    /** A production channel with its own webhook receiver; the sender's number posts inbound SMS to the channel's receive URL. */
    async function connect(number = SENDER): Promise<{ id: string; hook: WebhookReceiver; body: any }> {
      const hook = await startWebhookReceiver();
      hooks.push(hook);
      const res = await s.api.post('/v1/channels', { type: 'mobile', name: 'SMS', webhook: { url: hook.url }, provider: provider({ sender_id: number }) });
      assert.equal(res.status, 201, res.text);
      hook.secret = res.body.webhook.secret;
      const put = await sandbox(`/numbers/${encodeURIComponent(number)}`, { receive_url: res.body.provider.receive_webhook_url }, 'PUT');
      assert.equal(put.status, 200, put.text);
      return { id: res.body.id, hook, body: res.body };
    }

    test('the access key is checked with the provider on create and when it changes: refused 422, provider down 502', async () => {
      const made = await connect();
      assert.equal(made.body.provider.status_webhook_url, `${s.baseUrl}/inbound/${made.id}/status`);
      assert.equal(made.body.provider.receive_webhook_url, `${s.baseUrl}/inbound/${made.id}/receive`);

      const refused = await s.api.post('/v1/channels', { type: 'mobile', name: 'SMS', provider: provider({ access_token: 'live_wrong' }) });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.body.errors[0].field, 'provider.access_token');
      await sandbox('/faults', { kind: 'server_error', endpoint: 'messages', status: 503 });
      const down = await s.api.post('/v1/channels', { type: 'mobile', name: 'SMS', provider: provider() });
      assert.equal(down.status, 502, down.text);

      const changed = await s.api.patch(`/v1/channels/${made.id}`, { provider: { access_token: 'live_wrong' } });
      assert.equal(changed.status, 422, changed.text);
      assert.equal(changed.body.errors[0].field, 'provider.access_token');
      const key = await sandbox('/access_keys', { mode: 'live' });
      const rotated = await s.api.patch(`/v1/channels/${made.id}`, { provider: { access_token: key.body.access_key } });
      assert.equal(rotated.status, 200, rotated.text);

      // Test mode never calls the provider: its key is checked when the channel leaves test mode.
      const testMode = await s.api.post('/v1/channels', { type: 'mobile', name: 'SMS', mode: 'test', provider: provider({ access_token: 'live_wrong' }) });
      assert.equal(testMode.status, 201, testMode.text);
      const toProduction = await s.api.patch(`/v1/channels/${testMode.body.id}`, { mode: 'production' });
      assert.equal(toProduction.status, 422, toProduction.text);
      assert.equal(toProduction.body.errors[0].field, 'provider.access_token');
    });

    test('an inbound SMS becomes message_received with the contact made by its number', async () => {
      const channel = await connect();
      const sent = await sandbox('/inbound', { originator: '+420777123456', recipient: SENDER, body: 'Dobrý den, máte otevřeno?' });
      assert.equal(sent.body.webhook?.status, 200, sent.text);
      assert.equal(sent.body.webhook?.body, 'OK');
      const event = await channel.hook.waitFor('message_received');
      assert.equal(event.data.content.payload, 'Dobrý den, máte otevřeno?');
      assert.equal(event.data.contact.phone_number, '+420777123456');
      assert.equal(event.data.channel.id, channel.id);
      const contact = await s.api.get(`/v1/channels/${channel.id}/contacts/${event.data.contact.id}`);
      assert.equal(contact.body.name, '+420777123456');
      assert.equal(contact.body.phone_number, '+420777123456');

      // A reply from the same number is the same contact.
      await sandbox('/inbound', { originator: '420777123456', recipient: SENDER, body: 'Díky' });
      const second = await channel.hook.waitFor('message_received', (e) => e.data.content.payload === 'Díky');
      assert.equal(second.data.contact.id, event.data.contact.id);

      // Quick replies go out as numbered choices: the number, or the title, answers with the payload.
      const asked = await s.api.post('/v1/messages', {
        channel: { id: channel.id },
        contact: { phone_number: '+420777123456' },
        content: {
          type: 'text',
          payload: 'Which size?',
          quick_replies: [
            { type: 'text', title: 'Large', payload: 'SIZE_L' },
            { type: 'text', title: 'Small', payload: 'SIZE_S' },
          ],
        },
      });
      assert.equal(asked.status, 201, asked.text);
      await sandbox('/inbound', { originator: '420777123456', recipient: SENDER, body: ' 2 ' });
      const picked = await channel.hook.waitFor('message_received', (e) => e.data.content.payload === ' 2 ');
      assert.equal(picked.data.content.quick_reply?.payload, 'SIZE_S', JSON.stringify(picked.data.content));
    });

    test('a repeated inbound callback stores once; a bad or missing signature stores nothing', async () => {
      const channel = await connect('+420601000222');
      const sent = await sandbox('/inbound', { originator: '+420777000333', recipient: '+420601000222', body: 'once' });
      assert.equal(sent.body.webhook?.status, 200, sent.text);
      const event = await channel.hook.waitFor('message_received');
      const again = await sandbox(`/webhooks/${sent.body.webhook.delivery_id}/redeliver`, {});
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.status ?? again.body.webhook?.status, 200, again.text);
      const messages = async () => (await s.api.get(`/v1/channels/${channel.id}/contacts/${event.data.contact.id}/messages`)).body;
      assert.equal((await messages()).length, 1);

      // The provider signs with another key than the channel holds: the same 404 as an unknown channel.
      await sandbox('/account', { signing_key: 'another-signing-key' }, 'PATCH');
      try {
        const forged = await sandbox('/inbound', { originator: '+420777000333', recipient: '+420601000222', body: 'forged' });
        assert.equal(forged.body.webhook?.status, 404, forged.text);
        const bare = await fetch(`${s.baseUrl}/inbound/${channel.id}/receive`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'id=x1&originator=420777000444&body=unsigned',
        });
        assert.equal(bare.status, 404);
        const report = await fetch(`${s.baseUrl}/inbound/${channel.id}/status?id=x&status=delivered`);
        assert.equal(report.status, 404);
      } finally {
        await sandbox('/account', { signing_key: SIGNING_KEY }, 'PATCH');
      }
      assert.equal((await messages()).length, 1);
      const contacts = await s.api.get(`/v1/channels/${channel.id}/contacts`);
      assert.equal(contacts.body.length, 1, 'no contact made by the unsigned call');
      assert.equal(channel.hook.events.filter((e) => e.event === 'message_received').length, 1);
    });

    test('direct sends: parts, data coding, our reference, lookup by reference, status reports answered', async () => {
      const made = await connect('+420601000555');
      const connector = createMobileConnector({
        apiUrl: smsBase,
        timeoutMs: 1500,
        signatureHeaderName: 'Smsprovider-Signature-JWT',
        jwtIssuer: 'Smsprovider',
        inboundUrl: (id, endpoint) => `${s.baseUrl}/inbound/${id}/${endpoint}`,
        now: Date.now,
      });
      const channel: ChannelContext = {
        id: made.id,
        type: 'mobile',
        mode: 'production',
        config: { sender_id: 'Shop' },
        secrets: { access_token: ACCESS_KEY, signing_key: SIGNING_KEY },
      };
      const to: Recipient = { id: '1', externalId: null, phoneNumber: '+420777888999', userRef: null, email: null, name: null };
      const { sender, sentLookup } = connector.roles;

      const long = await sender.send(channel, to, { id: '1001', content: { type: 'text', payload: 'a'.repeat(161) } });
      assert.ok(long.ok, JSON.stringify(long));
      assert.equal(long.value.externalIds.length, 1);
      const unicode = await sender.send(channel, to, { id: '1002', content: { type: 'text', payload: 'ř'.repeat(71) } });
      assert.ok(unicode.ok);
      const seen = (await sandbox('/messages')).body.messages as any[];
      const byRef = (ref: string) => seen.find((m) => m.reference === ref);
      assert.equal(byRef('1001').id, long.value.externalIds[0]);
      assert.equal(byRef('1001').recipients.items[0].messagePartCount, 2);
      assert.equal(byRef('1001').datacoding, 'plain');
      assert.equal(byRef('1002').recipients.items[0].messagePartCount, 2);
      assert.equal(byRef('1002').datacoding, 'unicode', 'auto keeps characters outside GSM-7');
      assert.equal(byRef('1002').body, 'ř'.repeat(71));
      assert.deepEqual(
        [byRef('1001').params.originator, byRef('1001').params.recipients, byRef('1001').params.datacoding, byRef('1001').params.reportUrl],
        ['Shop', ['420777888999'], 'auto', reportUrlOf(`${s.baseUrl}/inbound/${made.id}/status`, channel)],
      );

      // A retry finds what the provider already took by its reference.
      assert.deepEqual(await sentLookup.findSent(channel, '1001', { since: Date.now() - 60_000 }), {
        ok: true,
        value: { externalIds: long.value.externalIds },
      });
      assert.deepEqual(await sentLookup.findSent(channel, 'never-sent'), { ok: true, value: null });

      // The provider's report reaches the channel's status URL, signed: answered 200 OK.
      const outcome = await sandbox(`/messages/${long.value.externalIds[0]}/status`, { status: 'delivered' });
      assert.equal(outcome.body.reports[0].webhook?.status, 200, outcome.text);
      assert.equal(outcome.body.reports[0].webhook?.body, 'OK');
    });

    test('direct sends: 429 with Retry-After, provider down then back, refused key and bad number are values', async () => {
      const connector = createMobileConnector({
        apiUrl: smsBase,
        timeoutMs: 500,
        signatureHeaderName: 'Smsprovider-Signature-JWT',
        jwtIssuer: 'Smsprovider',
        inboundUrl: (id, endpoint) => `${s.baseUrl}/inbound/${id}/${endpoint}`,
        now: Date.now,
      });
      const channel: ChannelContext = {
        id: '42',
        type: 'mobile',
        mode: 'production',
        config: { sender_id: SENDER },
        secrets: { access_token: ACCESS_KEY, signing_key: SIGNING_KEY },
      };
      const to: Recipient = { id: '1', externalId: null, phoneNumber: '+420777888999', userRef: null, email: null, name: null };
      const send = (id: string, ch = channel, recipient = to) => connector.roles.sender.send(ch, recipient, { id, content: { type: 'text', payload: 'hi' } });

      await sandbox('/faults', { kind: 'rate_limit', endpoint: 'messages', retry_after: 3 });
      const limited = await send('2001');
      assert.deepEqual(limited.ok ? null : [limited.retryable, limited.code, limited.retryAfterMs], [true, 'rate_limited', 3000]);
      await sandbox('/faults', { kind: 'server_error', endpoint: 'messages' });
      const down = await send('2002');
      assert.deepEqual(down.ok ? null : [down.retryable, down.code], [true, '99']);
      await sandbox('/faults', { kind: 'timeout', endpoint: 'messages', delay_ms: 1000 });
      const slow = await send('2003');
      assert.deepEqual(slow.ok ? null : [slow.retryable, slow.code], [true, 'timeout']);
      const back = await send('2004');
      assert.equal(back.ok, true);

      const refused = await send('2005', { ...channel, secrets: { ...channel.secrets, access_token: 'live_revoked' } });
      assert.deepEqual(refused.ok ? null : [refused.retryable, refused.code], [false, '2']);
      const badNumber = await send('2006', channel, { ...to, phoneNumber: '+1' });
      assert.deepEqual(badNumber.ok ? null : [badNumber.retryable, badNumber.code], [false, 'no_recipient']);
    });

    test('status reports signed with HS384 or HS512, or sent unsigned to the report URL, reach the message; a forged unsigned one changes nothing', async () => {
      const made = await connect('+420601000666');
      /** Sends through the API and answers our message id and the provider's. */
      const sendOne = async (text: string) => {
        const res = await s.api.post('/v1/messages', {
          channel: { id: made.id },
          contact: { phone_number: '+420777666000' },
          content: { type: 'text', payload: text },
        });
        assert.equal(res.status, 201, res.text);
        const providerId = await eventually(async () => {
          const listed = (await sandbox('/messages')).body.messages as any[];
          return listed.find((m) => m.reference === res.body.id)?.id as string | undefined;
        });
        return { id: res.body.id as string, providerId };
      };
      const statusOf = async (id: string) => (await s.api.get(`/v1/messages/${id}`)).body.status as string;
      const reported = async (id: string, status: string) =>
        eventually(async () => ((await statusOf(id)) === status ? true : undefined), 10_000, `message ${id} ${status}`);

      try {
        for (const alg of ['HS384', 'HS512']) {
          await sandbox('/account', { jwt_algorithm: alg }, 'PATCH');
          const m = await sendOne(`signed with ${alg}`);
          const outcome = await sandbox(`/messages/${m.providerId}/status`, { status: 'delivered' });
          assert.equal(outcome.body.reports[0].webhook?.status, 200, outcome.text);
          await reported(m.id, 'delivered');
        }
        await sandbox('/account', { jwt_algorithm: 'HS256', sign_status_reports: false }, 'PATCH');
        const m = await sendOne('reported unsigned');
        const outcome = await sandbox(`/messages/${m.providerId}/status`, { status: 'delivered' });
        const webhook = outcome.body.reports[0].webhook;
        assert.equal(webhook?.status, 200, outcome.text);
        await reported(m.id, 'delivered');

        // A forged report: the channel's status URL without its token, or with a made-up one.
        const victim = await sendOne('not to be forged');
        for (const query of ['', 'report_token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&']) {
          const forged = await fetch(
            `${s.baseUrl}/inbound/${made.id}/status?${query}id=${victim.providerId}&reference=${victim.id}&recipient=420777666000&status=delivery_failed&statusDatetime=2026-01-01T00:00:00%2B00:00`,
          );
          assert.equal(forged.status, 404, query);
        }
        assert.equal(await statusOf(victim.id), 'sent');
      } finally {
        await sandbox('/account', { jwt_algorithm: 'HS256', sign_status_reports: true }, 'PATCH');
      }
    });
  });
}
