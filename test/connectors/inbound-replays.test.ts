import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import type { WebhookReceiver } from '../helpers/webhooks.js';
import { startHarness, type Harness } from './helpers/harness.js';

/**
 * A platform call repeated byte for byte (the platform's own retry, or someone replaying a signed
 * call) makes one event and one webhook delivery, for events that store no message: postbacks,
 * opt-ins and button presses. The calls are re-sent by the stand-ins with the same body and
 * signature headers.
 */
for (const { dialect, skip } of await dialects()) {
  describe(`Inbound replays make one event (${dialect})`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(dialect);
    });
    after(async () => h?.close());

    /** The deliveries of a channel's events of one type, once none of them is pending (bounded). */
    async function settledDeliveries(channelId: string, type: string): Promise<any[]> {
      for (let i = 0; i < 200; i++) {
        const res = await h.s.api.get(`/v1/channels/${channelId}/webhook/deliveries?max=100`);
        assert.equal(res.status, 200, res.text);
        const ofType = (res.body as any[]).filter((d) => d.event.type === type);
        if (ofType.length > 0 && ofType.every((d) => d.status !== 'pending')) return ofType;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`deliveries of ${type} did not settle`);
    }

    /** Sends a recorded platform call twice more, unchanged; the service accepts each (200). */
    async function replayTwice(redeliver: (id: number) => Promise<{ body: any }>, deliveryId: number): Promise<void> {
      for (let i = 0; i < 2; i++) {
        const again = await redeliver(deliveryId);
        assert.equal(again.body.webhook.status, 200, JSON.stringify(again.body));
      }
    }

    async function assertOnce(channelId: string, hook: WebhookReceiver, type: string, match: (e: any) => boolean): Promise<void> {
      const deliveries = await settledDeliveries(channelId, type);
      assert.equal(deliveries.filter((d) => match(d.event.body)).length, 1, `one ${type} event and delivery`);
      assert.equal(deliveries[0].status, 'delivered');
      assert.equal(hook.events.filter((e) => e.event === type && match(e)).length, 1, `one ${type} webhook call`);
    }

    test('socialnet_chat: the same signed postback and opt-ins posted three times make one event each', async () => {
      const page = await h.connectPage();
      const user = await h.snSandbox(`/pages/${page.pageId}/users`, { first_name: 'Jana' });
      assert.equal(user.status, 201, user.text);
      const psid = user.body.user.psid as string;
      const redeliver = (id: number) => h.snSandbox(`/webhooks/${id}/redeliver`, {});

      // A postback names itself by the platform's message id.
      const postback = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/postback`, { payload: 'MENU', title: 'Menu' });
      assert.equal(postback.body.webhook.status, 200, postback.text);
      await replayTwice(redeliver, postback.body.webhook.delivery_id);
      await assertOnce(page.channelId, page.hook, 'postback', (e) => e.data.postback.payload === 'MENU');

      // Opt-ins carry no id: sender, signed time and ref name them.
      const plugin = await h.snSandbox(`/pages/${page.pageId}/optins`, { type: 'send_to_socialnet', psid, ref: 'landing' });
      assert.equal(plugin.body.webhook.status, 200, plugin.text);
      await replayTwice(redeliver, plugin.body.webhook.delivery_id);
      const checkbox = await h.snSandbox(`/pages/${page.pageId}/optins`, { type: 'checkbox', user_ref: 'ref-replay-1', ref: 'cart' });
      assert.equal(checkbox.body.webhook.status, 200, checkbox.text);
      await replayTwice(redeliver, checkbox.body.webhook.delivery_id);
      await assertOnce(page.channelId, page.hook, 'opt_in', (e) => e.data.opt_in.type === 'send_to_socialnet');
      await assertOnce(page.channelId, page.hook, 'opt_in', (e) => e.data.opt_in.type === 'checkbox');

      // The same user pressing the same button again is a new press (a new platform id): reported.
      const second = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/postback`, { payload: 'MENU', title: 'Menu' });
      assert.equal(second.body.webhook.status, 200, second.text);
      const deliveries = await settledDeliveries(page.channelId, 'postback');
      assert.equal(deliveries.length, 2);
    });

    test('botmsg: the same callback query posted three times makes one postback', async () => {
      const made = await h.bmSandbox('/bots', { username: 'replay_bot', first_name: 'Replay' });
      assert.equal(made.status, 201, made.text);
      const hook = await h.receiver();
      const channel = await h.s.api.post('/v1/channels', {
        type: 'botmsg',
        name: 'Replay bot',
        webhook: { url: hook.url },
        botmsg: { access_token: made.body.token },
      });
      assert.equal(channel.status, 201, channel.text);
      hook.secret = channel.body.webhook.secret;
      const botId = made.body.bot.id as number;
      const user = await h.bmSandbox(`/bots/${botId}/users`, { first_name: 'Jana' });
      const userId = user.body.user.id as number;
      assert.equal((await h.bmSandbox(`/bots/${botId}/users/${userId}/start`, {})).body.webhook.status, 200);
      const started = await hook.waitFor('message_received', (e) => e.data.content.payload === '/start');

      const card = await h.s.api.post('/v1/messages', {
        channel: { id: channel.body.id },
        contact: { id: started.data.contact.id },
        content: { type: 'structure', payload: { text: 'Pick', buttons: [{ type: 'postback', title: 'Yes', payload: 'YES' }] } },
      });
      assert.equal(card.status, 201, card.text);
      const sent = (await h.bmSandbox(`/bots/${botId}/messages?chat_id=${userId}`)).body.messages.at(-1);
      const press = await h.bmSandbox(`/bots/${botId}/users/${userId}/callback_query`, { message_id: sent.message_id, row: 0, column: 0 });
      assert.equal(press.body.webhook.status, 200, press.text);
      await replayTwice((id) => h.bmSandbox(`/webhooks/${id}/redeliver`, {}), press.body.webhook.delivery_id);
      await assertOnce(channel.body.id, hook, 'postback', (e) => e.data.postback.payload === 'YES');
    });
  });
}
