import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { appendEvent, channelWithWebhook } from '../helpers/factories.js';
import { eventually } from '../helpers/waits.js';
import { ADMIN_TEST_ENV, signedIn, type AdminClient } from './admin-data-client.js';

for (const { dialect, skip, test } of await dialects()) {
  describe(`administration: webhook tools (${dialect})`, { skip }, () => {
    let s: TestServer;
    let app: AdminClient;
    let hook: WebhookReceiver;
    before(async () => {
      s = await startTestServer(dialect, { env: ADMIN_TEST_ENV, workers: true });
      app = await signedIn(s, s.accountId, 'member');
      hook = await startWebhookReceiver();
    });
    after(async () => {
      await s?.close();
      await hook?.close();
    });

    async function hooked(): Promise<string> {
      const channel = await channelWithWebhook(s, hook.url);
      hook.secret = channel.secret;
      return channel.id;
    }

    test('a test event goes through the outbox: signed, delivered, and in the delivery log', async () => {
      const channelId = await hooked();
      const res = await app.post(`/channels/${channelId}/webhook/test`);
      assert.equal(res.status, 202, res.text);
      assert.match(res.body.delivery_id, /^[1-9][0-9]*$/);
      const event = await hook.waitFor('webhook_test', (e) => e.data.channel?.id === channelId);
      assert.ok(event.signatureValid);
      assert.deepEqual(Object.keys(event).sort(), ['data', 'event', 'headers', 'signatureValid', 'timestamp']);
      assert.deepEqual(event.data, { channel: { id: channelId, type: 'service_chat', name: 'hooked' } });
      assert.ok(!Number.isNaN(Date.parse(event.timestamp)));
      const logged = await eventually(async () => {
        const list = await app.get(`/v1/channels/${channelId}/webhook/deliveries`);
        const found = list.body.find((d: any) => d.id === res.body.delivery_id);
        return found?.status === 'delivered' ? found : undefined;
      });
      assert.equal(logged.event.type, 'webhook_test');
      assert.equal(logged.attempts.length, 1);
      assert.equal(logged.attempts[0].status_code, 200);
      assert.equal(event.headers['x-parley-event-id'], logged.event.id);
    });

    test("no webhook is 422; another account's channel and a bad id are 404", async () => {
      const bare = await s.api.post('/v1/channels', { type: 'service_chat', name: 'no hook' });
      for (const path of ['test', 'secret', 'redeliver-failed']) {
        const res = await app.post(`/channels/${bare.body.id}/webhook/${path}`);
        assert.equal(res.status, 422, `${path}: ${res.text}`);
      }
      const other = await s.newAccount();
      const theirs = await other.api.post('/v1/channels', { type: 'service_chat', name: 'theirs', webhook: { url: hook.url } });
      for (const path of ['test', 'secret', 'redeliver-failed']) {
        assert.equal((await app.post(`/channels/${theirs.body.id}/webhook/${path}`)).status, 404, path);
        assert.equal((await app.post(`/channels/x1/webhook/${path}`)).status, 404, path);
      }
      const unchanged = await other.api.get(`/v1/channels/${theirs.body.id}`);
      assert.equal(unchanged.body.webhook.secret, theirs.body.webhook.secret);
    });

    test('a rotated secret is shown on the channel and signs the next events', async () => {
      const channelId = await hooked();
      const before = (await app.get(`/v1/channels/${channelId}`)).body.webhook;
      const res = await app.post(`/channels/${channelId}/webhook/secret`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, channelId);
      assert.equal(res.body.webhook.id, before.id);
      assert.equal(res.body.webhook.url, before.url);
      assert.notEqual(res.body.webhook.secret, before.secret);
      assert.match(res.body.webhook.secret, /^[A-Za-z0-9]{30}$/);
      assert.equal((await s.api.get(`/v1/channels/${channelId}`)).body.webhook.secret, res.body.webhook.secret);
      hook.secret = res.body.webhook.secret;
      const sent = await app.post(`/channels/${channelId}/webhook/test`);
      const event = await hook.waitFor(
        'webhook_test',
        (e) => e.headers['x-parley-event-id'] !== undefined && e.data.channel?.id === channelId && e.signatureValid,
      );
      assert.ok(event);
      assert.equal(sent.status, 202);
    });

    test('redeliver all failed: every failed delivery of the channel is sent again with its event id; others stay', async () => {
      const channelId = await hooked();
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await appendEvent(s, channelId, { n: i }));
      await eventually(async () => {
        const list = await app.get(`/v1/channels/${channelId}/webhook/deliveries?status=delivered`);
        return list.body.length === 3 ? true : undefined;
      });
      // Two of them as the worker leaves a delivery whose every try failed.
      const failedIds = [made[0]!.deliveryId, made[2]!.deliveryId].map(Number);
      await s.runtime.store.db.updateTable('deliveries').set({ status: 'failed', last_status_code: 500 }).where('id', 'in', failedIds).execute();
      const seen = hook.events.length;

      const res = await app.post(`/channels/${channelId}/webhook/redeliver-failed`);
      assert.equal(res.status, 202, res.text);
      assert.deepEqual(res.body, { redelivered: 2 });
      await eventually(async () => {
        const list = await app.get(`/v1/channels/${channelId}/webhook/deliveries?status=delivered`);
        return list.body.length === 3 ? true : undefined;
      });
      const again = hook.events.slice(seen).map((e) => e.headers['x-parley-event-id']);
      assert.deepEqual(again.sort(), [made[0]!.eventId, made[2]!.eventId].sort());
      // Nothing failed is left to redeliver.
      assert.deepEqual((await app.post(`/channels/${channelId}/webhook/redeliver-failed`)).body, { redelivered: 0 });
    });
  });
}
