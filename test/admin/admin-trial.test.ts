import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer } from '../helpers/runtime.js';
import { startWebhookReceiver } from '../helpers/webhooks.js';
import { SMS_ACCESS_KEY, SMS_SIGNING_KEY, startHarness, type Harness } from '../connectors/helpers/harness.js';
import { ADMIN_TEST_ENV, signedIn, type AdminClient } from './admin-data-client.js';

const SANDBOX_URL = 'http://127.0.0.1:9101';

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['a socialnet_chat page user writes to the channel'] })) {
  describe(`administration: local trial with the platform stand-ins (${dialect})`, { skip }, () => {
    let h: Harness;
    let app: AdminClient;
    before(async () => {
      h = await startHarness(dialect, { ...ADMIN_TEST_ENV, SANDBOX_URL });
      app = await signedIn(h.s, h.s.accountId, 'member');
    });
    after(async () => h?.close());

    const trial = (channelId: string, body: Record<string, unknown>) => app.post(`/trial/channels/${channelId}/messages`, body);

    async function received(channelId: string, contactId: string): Promise<any[]> {
      const res = await app.get(`/v1/channels/${channelId}/contacts/${contactId}/messages?max=100`);
      assert.equal(res.status, 200, res.text);
      return res.body.filter((m: any) => m.direction === 'received');
    }

    test('the trial is available and names the sandbox', async () => {
      assert.deepEqual((await app.get('/trial')).body, { available: true, sandbox_url: SANDBOX_URL });
    });

    test('a socialnet_chat page user writes to the channel', async () => {
      const page = await h.connectPage('Trial page');
      const first = await trial(page.channelId, { text: 'Hello from the trial' });
      assert.equal(first.status, 202, first.text);
      const event = await page.hook.waitFor('message_received', (e) => e.data.content.payload === 'Hello from the trial');
      assert.ok(event.signatureValid);
      assert.equal(event.data.contact.id, first.body.contact_id);
      // The same trial user writes again: one contact, two messages.
      const second = await trial(page.channelId, { text: 'Still me' });
      assert.equal(second.body.contact_id, first.body.contact_id);
      assert.deepEqual((await received(page.channelId, first.body.contact_id)).map((m) => m.content.payload).sort(), ['Hello from the trial', 'Still me']);
      // Named contact: a user who wrote on the platform is made to write again.
      const user = await h.snSandbox(`/pages/${page.pageId}/users`, { first_name: 'Jana', last_name: 'Nováková' });
      await h.snSandbox(`/pages/${page.pageId}/users/${user.body.user.psid}/messages`, { text: 'Hi, Jana here' });
      const jana = await page.hook.waitFor('message_received', (e) => e.data.content.payload === 'Hi, Jana here');
      const asJana = await trial(page.channelId, { text: 'Jana again', contact: jana.data.contact.id });
      assert.equal(asJana.status, 202, asJana.text);
      assert.equal(asJana.body.contact_id, jana.data.contact.id);
      assert.deepEqual((await received(page.channelId, jana.data.contact.id)).map((m) => m.content.payload).sort(), ['Hi, Jana here', 'Jana again']);
    });

    test('a botmsg user starts the bot and writes to it', async () => {
      const made = await h.bmSandbox('/bots', { username: 'trial_shop_bot', first_name: 'Trial Shop' });
      const hook = await h.receiver();
      const channel = await h.s.api.post('/v1/channels', {
        type: 'botmsg',
        name: 'Bot',
        webhook: { url: hook.url },
        botmsg: { access_token: made.body.token },
      });
      assert.equal(channel.status, 201, channel.text);
      hook.secret = channel.body.webhook.secret;
      const res = await trial(channel.body.id, { text: 'Do you deliver?' });
      assert.equal(res.status, 202, res.text);
      const event = await hook.waitFor('message_received', (e) => e.data.content.payload === 'Do you deliver?');
      assert.equal(event.data.contact.id, res.body.contact_id);
      assert.deepEqual(
        (await received(channel.body.id, res.body.contact_id)).map((m) => m.content.payload),
        ['Do you deliver?', '/start'],
      );
    });

    test("a phone texts a mobile channel's number, which the stand-in is pointed at; a sender name cannot be written to", async () => {
      const hook = await startWebhookReceiver();
      h.receivers.push(hook);
      const provider = { type: 'smsprovider', access_token: SMS_ACCESS_KEY, signing_key: SMS_SIGNING_KEY };
      const channel = await h.s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        webhook: { url: hook.url },
        provider: { ...provider, sender_id: '+420601000999' },
      });
      assert.equal(channel.status, 201, channel.text);
      hook.secret = channel.body.webhook.secret;
      const res = await trial(channel.body.id, { text: 'Are you open today?' });
      assert.equal(res.status, 202, res.text);
      const event = await hook.waitFor('message_received', (e) => e.data.content.payload === 'Are you open today?');
      assert.equal(event.data.contact.id, res.body.contact_id);
      const contact = await app.get(`/v1/channels/${channel.body.id}/contacts/${res.body.contact_id}`);
      assert.equal(contact.body.phone_number, '+447700900123');
      const numbers = (await h.smsSandbox('/account')).body.numbers;
      assert.deepEqual(
        numbers.find((n: any) => n.number === '420601000999'),
        { number: '420601000999', receive_url: channel.body.provider.receive_webhook_url },
      );

      const named = await h.s.api.post('/v1/channels', { type: 'mobile', name: 'Named', provider: { ...provider, sender_id: 'CoffeeShop' } });
      assert.equal(named.status, 201, named.text);
      const refused = await trial(named.body.id, { text: 'hi' });
      assert.equal(refused.status, 422, refused.text);
      assert.match(refused.body.errors[0].message, /sender name/);
    });

    test('types without a trial, unknown channels and contacts, and bad bodies', async () => {
      const chat = await h.s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' });
      const noTrial = await trial(chat.body.id, { text: 'hi' });
      assert.equal(noTrial.status, 422, noTrial.text);
      assert.equal(noTrial.body.errors[0].message, 'Channels of type service_chat have no local trial.');

      const other = await h.s.newAccount();
      const theirs = await other.api.post('/v1/channels', { type: 'service_chat', name: 'theirs' });
      assert.equal((await trial(theirs.body.id, { text: 'hi' })).status, 404);
      assert.equal((await trial('123', { text: 'hi' })).status, 404);

      const page = await h.connectPage('Another page');
      assert.equal((await trial(page.channelId, { text: 'hi', contact: '999999' })).status, 404);
      // A contact the page reached by phone number only has no page-scoped id to write as.
      const byPhone = await h.s.api.post('/v1/messages', {
        channel: { id: page.channelId },
        contact: { phone_number: '+420601555111', first_name: 'Petr', last_name: 'Novák' },
        content: { type: 'text', payload: 'Your order shipped' },
      });
      assert.equal(byPhone.status, 201, byPhone.text);
      const phoneOnly = await trial(page.channelId, { text: 'hi', contact: byPhone.body.contact.id });
      assert.equal(phoneOnly.status, 422, phoneOnly.text);
      assert.match(phoneOnly.body.errors[0].message, /no platform id/);
      for (const body of [{}, { text: '' }, { text: 'x'.repeat(2001) }, { text: 'hi', contact: 'abc' }]) {
        const res = await trial(page.channelId, body);
        assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      }
    });

    // Last: the socialnet_chat stand-in stays closed (the harness's close tolerates it).
    test('a stand-in that does not answer is a 502 naming it', async () => {
      const page = await h.connectPage('Page that goes away');
      await h.sn.close();
      const res = await trial(page.channelId, { text: 'anyone there?' });
      assert.equal(res.status, 502, res.text);
      assert.match(res.body.errors[0].message, /stand-in .* did not answer/);
    });
  });
}

for (const { dialect, skip, test } of await dialects({ postgresSmoke: [] })) {
  describe(`administration: no local trial without SANDBOX_URL (${dialect})`, { skip }, () => {
    test('the trial is off and a trial message is refused', async () => {
      const s = await startTestServer(dialect, { env: ADMIN_TEST_ENV });
      try {
        const app = await signedIn(s, s.accountId, 'owner');
        assert.deepEqual((await app.get('/trial')).body, { available: false, sandbox_url: null });
        const chat = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' });
        const res = await app.post(`/trial/channels/${chat.body.id}/messages`, { text: 'hi' });
        assert.equal(res.status, 422, res.text);
        assert.match(res.body.errors[0].message, /npm run sandbox/);
      } finally {
        await s.close();
      }
    });
  });
}
