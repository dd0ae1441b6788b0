import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { eventually } from '../helpers/waits.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import { http, type JsonAnswer } from './helpers/harness.js';

const ACCESS_KEY = 'live_sharednumbertestkey0001';
const SIGNING_KEY = 'provider-signing-key-of-the-account';
/** The provider's number that the channels with an alphanumeric sender id share: its replies go to one channel's receive URL. */
const SHARED = '+420600999000';

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['a reply to the shared number reaches the channel that last sent to its sender'] })) {
  describe(`mobile: replies to a shared number (${dialect})`, { skip }, () => {
    let s: TestServer;
    let sms: ReturnType<typeof createSmsproviderStandIn>;
    let smsBase: string;
    const hooks: WebhookReceiver[] = [];
    let user = 0;
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

    interface Connected {
      id: string;
      hook: WebhookReceiver;
      receiveUrl: string;
    }

    async function connect(senderId: string, mode?: string): Promise<Connected> {
      const hook = await startWebhookReceiver();
      hooks.push(hook);
      const res = await s.api.post('/v1/channels', {
        type: 'mobile',
        name: `SMS ${senderId}`,
        ...(mode ? { mode } : {}),
        webhook: { url: hook.url },
        provider: { type: 'smsprovider', sender_id: senderId, access_token: ACCESS_KEY, signing_key: SIGNING_KEY },
      });
      assert.equal(res.status, 201, res.text);
      hook.secret = res.body.webhook.secret;
      return { id: res.body.id, hook, receiveUrl: res.body.provider.receive_webhook_url };
    }

    /** The provider posts what comes to `number` to this channel's receive URL. */
    async function receivesFor(number: string, channel: Connected): Promise<void> {
      const put = await sandbox(`/numbers/${encodeURIComponent(number)}`, { receive_url: channel.receiveUrl }, 'PUT');
      assert.equal(put.status, 200, put.text);
    }

    const newUser = () => `+42077755${String(++user).padStart(4, '0')}`;

    /** Sends from a channel and waits until the provider took the message (`sent`). */
    async function sendFrom(channel: Connected, phone: string, content: Record<string, unknown> = { type: 'text', payload: 'Your order is ready.' }) {
      const res = await s.api.post('/v1/messages', { channel: { id: channel.id }, contact: { phone_number: phone }, content });
      assert.equal(res.status, 201, res.text);
      await eventually(
        async () => {
          const got = await s.api.get(`/v1/messages/${res.body.id}`);
          return got.body.status === 'sent' ? true : undefined;
        },
        10_000,
        `message ${res.body.id} sent`,
      );
      return { messageId: res.body.id as string, contactId: res.body.contact.id as string };
    }

    /** An SMS from the user to a number; answers the provider's record of the call. */
    async function reply(from: string, to: string, body: string): Promise<JsonAnswer> {
      const sent = await sandbox('/inbound', { originator: from.replace('+', ''), recipient: to, body });
      assert.equal(sent.body.webhook?.status, 200, sent.text);
      return sent;
    }

    async function messagesOf(channelId: string, contactId: string): Promise<any[]> {
      const res = await s.api.get(`/v1/channels/${channelId}/contacts/${contactId}/messages?max=100`);
      assert.equal(res.status, 200, res.text);
      return res.body as any[];
    }

    test('a reply to the shared number reaches the channel that last sent to its sender', async () => {
      const shop = await connect('Shop');
      const deals = await connect('Deals');
      await receivesFor(SHARED, shop);
      const eva = newUser();

      // Deals sent last: the reply posted to Shop's URL is Deals' conversation with that contact.
      const fromDeals = await sendFrom(deals, eva);
      await reply(eva, SHARED, 'Which deal?');
      const toDeals = await deals.hook.waitFor('message_received', (e) => e.data.content.payload === 'Which deal?');
      assert.equal(toDeals.data.channel.id, deals.id);
      assert.equal(toDeals.data.contact.id, fromDeals.contactId);
      assert.equal((await messagesOf(deals.id, fromDeals.contactId)).length, 2);

      // Then Shop sends: the next reply is Shop's.
      const fromShop = await sendFrom(shop, eva);
      await reply(eva, SHARED, 'Thanks, shop');
      const toShop = await shop.hook.waitFor('message_received', (e) => e.data.content.payload === 'Thanks, shop');
      assert.equal(toShop.data.channel.id, shop.id);
      assert.equal(toShop.data.contact.id, fromShop.contactId);
      assert.equal(deals.hook.events.filter((e) => e.event === 'message_received').length, 1);
    });

    test('without an earlier send the reply stays on the channel called; a channel with its own number keeps its replies', async () => {
      const shop = await connect('ShopTwo');
      await connect('DealsTwo');
      const own = await connect('+420601000777');
      await receivesFor(SHARED, shop);
      await receivesFor('+420601000777', own);

      const stranger = newUser();
      await reply(stranger, SHARED, 'Hello?');
      const first = await shop.hook.waitFor('message_received', (e) => e.data.content.payload === 'Hello?');
      assert.equal(first.data.channel.id, shop.id);
      assert.equal(first.data.contact.phone_number, stranger);

      // A channel that sends from its own number is not one of the shared number's senders...
      const adam = newUser();
      await sendFrom(own, adam);
      await reply(adam, SHARED, 'To the shared number');
      const shared = await shop.hook.waitFor('message_received', (e) => e.data.content.payload === 'To the shared number');
      assert.equal(shared.data.channel.id, shop.id);
      // ...and a reply to its number is its own, even when a shared sender wrote later.
      await sendFrom(shop, adam);
      await reply(adam, '+420601000777', 'To your number');
      const direct = await own.hook.waitFor('message_received', (e) => e.data.content.payload === 'To your number');
      assert.equal(direct.data.channel.id, own.id);
    });

    test('a numbered quick reply to the shared number answers the choices of the channel that asked', async () => {
      const shop = await connect('ShopThree');
      const deals = await connect('DealsThree');
      await receivesFor(SHARED, shop);
      const ida = newUser();
      await sendFrom(deals, ida, {
        type: 'text',
        payload: 'Which size?',
        quick_replies: [
          { type: 'text', title: 'Large', payload: 'SIZE_L' },
          { type: 'text', title: 'Small', payload: 'SIZE_S' },
        ],
      });
      await reply(ida, SHARED, '2');
      const picked = await deals.hook.waitFor('message_received', (e) => e.data.content.payload === '2');
      assert.equal(picked.data.content.quick_reply?.payload, 'SIZE_S', JSON.stringify(picked.data.content));
    });

    test('a repeated callback stays where it was stored, even after another channel sent to the user', async () => {
      const shop = await connect('ShopFour');
      const deals = await connect('DealsFour');
      await receivesFor(SHARED, shop);
      const otto = newUser();
      const fromDeals = await sendFrom(deals, otto);
      const sent = await reply(otto, SHARED, 'Once only');
      await deals.hook.waitFor('message_received', (e) => e.data.content.payload === 'Once only');
      const fromShop = await sendFrom(shop, otto);
      const again = await sandbox(`/webhooks/${sent.body.webhook.delivery_id}/redeliver`, {});
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.status ?? again.body.webhook?.status, 200, again.text);
      const received = (list: any[]) => list.filter((m) => m.direction === 'received');
      assert.equal(received(await messagesOf(deals.id, fromDeals.contactId)).length, 1);
      assert.equal(received(await messagesOf(shop.id, fromShop.contactId)).length, 0);
    });

    test('a test-mode channel (never sent through the provider) does not count as sent from the shared number', async () => {
      const shop = await connect('ShopFive');
      const trial = await connect('TrialFive', 'test');
      await receivesFor(SHARED, shop);
      const vera = newUser();
      const res = await s.api.post('/v1/messages', { channel: { id: trial.id }, contact: { phone_number: vera }, content: { type: 'text', payload: 'Test' } });
      assert.equal(res.status, 201, res.text);
      await reply(vera, SHARED, 'From a test');
      const got = await shop.hook.waitFor('message_received', (e) => e.data.content.payload === 'From a test');
      assert.equal(got.data.channel.id, shop.id);
    });
  });
}
