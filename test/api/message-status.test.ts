import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import type { WebhookReceiver } from '../helpers/webhooks.js';
import { http, startHarness, type Harness } from '../connectors/helpers/harness.js';
import { channelBody, send } from './messages-fixtures.js';

const TEXT = { type: 'text', payload: 'Your order has shipped.' };

for (const { dialect, skip } of await dialects()) {
  describe(`Message status and error in Get Message and List Messages (${dialect})`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(dialect);
    });
    after(async () => h?.close());

    const sb = (path: string, body?: unknown) => http(body === undefined ? 'GET' : 'POST', `${h.snBase}/_sandbox${path}`, body);
    const getMessage = async (id: string) => {
      const res = await h.s.api.get(`/v1/messages/${id}`);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const listMessages = async (channelId: string, contactId: string) => {
      const res = await h.s.api.get(`/v1/channels/${channelId}/contacts/${contactId}/messages?max=100`);
      assert.equal(res.status, 200, res.text);
      return res.body as any[];
    };

    async function channelWithHook(type: string, mode?: string, extra: Record<string, unknown> = {}): Promise<{ id: string; hook: WebhookReceiver }> {
      const hook = await h.receiver();
      const res = await h.s.api.post('/v1/channels', { ...channelBody(type, mode), webhook: { url: hook.url }, ...extra });
      assert.equal(res.status, 201, res.text);
      hook.secret = res.body.webhook.secret;
      return { id: res.body.id, hook };
    }

    /** A page connected as a channel, and a user of it who wrote first (so the page may answer). */
    async function pageWithUser(): Promise<{ channelId: string; pageId: string; psid: string; contactId: string; hook: WebhookReceiver }> {
      const made = await sb('/pages', { name: 'Status Shop', category: 'Shopping' });
      assert.equal(made.status, 201, made.text);
      const pageId = made.body.page.id as string;
      const { id: channelId, hook } = await channelWithHook('socialnet_chat', undefined, {
        socialnet_page: { id: pageId, access_token: made.body.admin.user_access_token },
      });
      const user = await sb(`/pages/${pageId}/users`, { first_name: 'Eva', last_name: 'Svobodová' });
      assert.equal(user.status, 201, user.text);
      const psid = user.body.user.psid as string;
      const said = await sb(`/pages/${pageId}/users/${psid}/messages`, { text: 'Where is my order?' });
      assert.equal(said.body.webhook?.status, 200, said.text);
      const received = await hook.waitFor('message_received');
      return { channelId, pageId, psid, contactId: received.data.contact.id, hook };
    }

    test('a test-mode message is `sent`; the Send Message answer, its replay and message_echo keep the shape of the specification', async () => {
      const { id: channel, hook } = await channelWithHook('mobile', 'test');
      const res = await send(h.s.api, channel, { phone_number: '+420601222333' }, TEXT, {}, { 'idempotency-key': 'status-1' });
      assert.equal(res.status, 201, res.text);
      assert.ok(!('status' in res.body) && !('error' in res.body), res.text);
      const replay = await send(h.s.api, channel, { phone_number: '+420601222333' }, TEXT, {}, { 'idempotency-key': 'status-1' });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, res.body);

      const echo = await hook.waitFor('message_echo', (e) => e.data.id === res.body.id);
      assert.ok(echo.signatureValid);
      assert.ok(!('status' in echo.data) && !('error' in echo.data) && !('parts' in echo.data), JSON.stringify(echo.data));

      const got = await getMessage(res.body.id);
      assert.deepEqual(got, { ...res.body, status: 'sent', parts: { count: 1, encoding: 'gsm7' } });
      const [listed] = await listMessages(channel, res.body.contact.id);
      assert.deepEqual(listed, got);
    });

    test('a queued production message of an asynchronous type is `pending`', async () => {
      const { id: channel } = await channelWithHook('mobile');
      // The provider is down for a while: the send worker keeps the message queued and tries again later.
      await h.smsSandbox('/faults', { kind: 'server_error', endpoint: 'messages', count: 5 });
      const res = await send(h.s.api, channel, { phone_number: '+420601444555' }, TEXT);
      assert.equal(res.status, 201, res.text);
      assert.ok(!('status' in res.body), res.text);
      const got = await getMessage(res.body.id);
      assert.equal(got.status, 'pending');
      assert.ok(!('error' in got));
      assert.equal((await listMessages(channel, res.body.contact.id))[0].status, 'pending');
    });

    test('a failed synchronous send is `failed` with a message_failed error; a delivered receipt makes `delivered`, a read one keeps it', async () => {
      const { channelId, pageId, psid, contactId, hook } = await pageWithUser();
      const ok = await send(h.s.api, channelId, { id: contactId }, { type: 'text', payload: 'It left today.' });
      assert.equal(ok.status, 201, ok.text);
      const echo = await hook.waitFor('message_echo', (e) => e.data.id === ok.body.id);
      assert.ok(!('status' in echo.data), JSON.stringify(echo.data));
      assert.equal((await getMessage(ok.body.id)).status, 'sent');

      // The user blocks the page: the platform refuses with its "not available" error.
      await sb(`/pages/${pageId}/users/${psid}/block`, {});
      const blocked = await send(h.s.api, channelId, { id: contactId }, { type: 'text', payload: 'Are you there?' });
      assert.equal(blocked.status, 502, blocked.text);
      await sb(`/pages/${pageId}/users/${psid}/unblock`, {});

      let list = await listMessages(channelId, contactId);
      const failed = list.find((m) => m.content.payload === 'Are you there?');
      assert.ok(failed, JSON.stringify(list));
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error.code, 2);
      assert.match(failed.error.message, /isn't available right now/);
      assert.deepEqual(Object.keys(failed.error).sort(), ['code', 'message']);
      assert.deepEqual(await getMessage(failed.id), failed);
      // A message the contact wrote has reached the service; it is not delivered until read.
      const received = list.find((m) => m.direction === 'received');
      assert.equal(received.status, 'sent');
      assert.ok(!('error' in received));

      const delivered = await sb(`/pages/${pageId}/users/${psid}/deliver`, {});
      assert.equal(delivered.status, 200, delivered.text);
      await hook.waitFor('messages_delivered', (e) => e.data.messages.some((m: any) => m.id === ok.body.id));
      const afterDelivery = await getMessage(ok.body.id);
      assert.equal(afterDelivery.status, 'delivered');
      assert.equal(typeof afterDelivery.delivered, 'string');
      assert.equal((await getMessage(failed.id)).status, 'failed');

      await sb(`/pages/${pageId}/users/${psid}/read`, {});
      await hook.waitFor('messages_read');
      const afterRead = await getMessage(ok.body.id);
      assert.equal(afterRead.status, 'delivered');
      assert.equal(typeof afterRead.read, 'string');
      list = await listMessages(channelId, contactId);
      assert.deepEqual(
        list.map((m) => [m.content.payload, m.status, m.error?.code ?? null]),
        [
          ['Are you there?', 'failed', 2],
          ['It left today.', 'delivered', null],
          ['Where is my order?', 'sent', null],
        ],
      );
      // No failure was echoed.
      assert.equal(hook.events.filter((e) => e.event === 'message_echo').length, 1);
    });

    test('any other platform refusal is code 1, with the platform reason', async () => {
      const { channelId, pageId, contactId } = await pageWithUser();
      await sb(`/pages/${pageId}/disconnect`, { reason: 'password_changed' });
      const res = await send(h.s.api, channelId, { id: contactId }, { type: 'text', payload: 'Anyone?' });
      assert.equal(res.status, 502, res.text);
      const [failed] = await listMessages(channelId, contactId);
      assert.equal(failed.content.payload, 'Anyone?');
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error.code, 1);
      assert.match(failed.error.message, /page is disconnected/);
    });

    test('the API document names the status on Get Message and List Messages only', async () => {
      const doc = (await h.s.api.get('/v1/openapi.json')).body;
      const schemaOf = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema;
      assert.deepEqual(schemaOf('/messages/{message_id}', 'get', '200'), { $ref: '#/components/schemas/MessageWithStatus' });
      assert.deepEqual(schemaOf('/channels/{channel_id}/contacts/{contact_id}/messages', 'get', '200').items, {
        $ref: '#/components/schemas/MessageWithStatus',
      });
      assert.deepEqual(schemaOf('/messages', 'post', '201'), { $ref: '#/components/schemas/Message' });
      assert.ok(!('status' in doc.components.schemas.Message.properties));
      const withStatus = doc.components.schemas.MessageWithStatus;
      assert.deepEqual(withStatus.allOf[0], { $ref: '#/components/schemas/Message' });
      assert.deepEqual(withStatus.allOf[1].properties.status.enum, ['pending', 'sent', 'delivered', 'failed']);
      assert.deepEqual(doc.components.schemas.MessageError.properties.code.enum, [1, 2, 3, 4]);
    });
  });
}
