import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { count, createChannel, fakeConnectors, send } from './messages-fixtures.js';
import { contactRow } from '../helpers/store-rows.js';

const TEXT = { type: 'text', payload: 'Hello' };

for (const { dialect, skip } of await dialects()) {
  describe(`Idempotency-Key on Send Message (${dialect})`, { skip }, () => {
    let s: TestServer;
    let channel: string;
    before(async () => {
      s = await startTestApp(dialect, { connectors: fakeConnectors().registry });
      channel = await createChannel(s.api, 'mobile', 'test', { webhook: { url: 'https://example.com/hook' } });
    });
    after(async () => s?.close());

    const key = (k: string) => ({ 'idempotency-key': k });

    test('the same key and body return the first response and create nothing', async () => {
      const first = await send(s.api, channel, { phone_number: '+420601123456' }, TEXT, { metadata: { a: 1, b: 2 } }, key('order-1'));
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const messages = await count(s, 'messages');
      const events = await count(s, 'events');
      const deliveries = await count(s, 'deliveries');
      // Same body with its keys in another order.
      const again = await s.api.post(
        '/v1/messages',
        { metadata: { b: 2, a: 1 }, content: TEXT, contact: { phone_number: '+420601123456' }, channel: { id: channel } },
        key('order-1'),
      );
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.headers.get('location'), first.headers.get('location'));
      assert.deepEqual(again.body, first.body);
      assert.equal(await count(s, 'messages'), messages);
      assert.equal(await count(s, 'events'), events);
      assert.equal(await count(s, 'deliveries'), deliveries);
    });

    test('another body with the same key is 422 on Idempotency-Key', async () => {
      await send(s.api, channel, { phone_number: '+420601123456' }, TEXT, {}, key('order-2'));
      const other = await send(s.api, channel, { phone_number: '+420601123456' }, { type: 'text', payload: 'Hello!' }, {}, key('order-2'));
      assert.equal(other.status, 422);
      assert.equal(other.body.errors[0].field, 'Idempotency-Key');
      assert.equal(other.body.errors[0].rejected_value, 'order-2');
      // The same body as the first still replays.
      assert.equal((await send(s.api, channel, { phone_number: '+420601123456' }, TEXT, {}, key('order-2'))).status, 201);
    });

    test('concurrent duplicates create one message', async () => {
      const before = await count(s, 'messages');
      const all = await Promise.all(Array.from({ length: 25 }, () => send(s.api, channel, { phone_number: '+420601777888' }, TEXT, {}, key('burst-1'))));
      assert.deepEqual([...new Set(all.map((r) => r.status))], [201]);
      assert.equal(new Set(all.map((r) => r.body.id)).size, 1);
      assert.equal(await count(s, 'messages'), before + 1);
      assert.equal(all.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 24);
    });

    test('keys belong to their account', async () => {
      const other = await s.newAccount();
      const otherChannel = await createChannel(other.api, 'mobile', 'test');
      const mine = await send(s.api, channel, { phone_number: '+420601123456' }, TEXT, {}, key('shared-key'));
      const theirs = await send(other.api, otherChannel, { phone_number: '+420601123456' }, TEXT, {}, key('shared-key'));
      assert.equal(theirs.status, 201);
      assert.notEqual(theirs.body.id, mine.body.id);
    });

    test('a key must be 1 to 255 visible ASCII characters', async () => {
      assert.equal((await send(s.api, channel, { phone_number: '+420601123456' }, TEXT, {}, key('k'.repeat(255)))).status, 201);
      const long = await send(s.api, channel, { phone_number: '+420601123456' }, TEXT, {}, key('k'.repeat(256)));
      assert.equal(long.status, 422);
      assert.equal(long.body.errors[0].field, 'Idempotency-Key');
      assert.equal((await send(s.api, channel, { phone_number: '+420601123456' }, TEXT, {}, key('with space'))).status, 422);
    });

    test('a request refused before anything was stored can be retried with its key', async () => {
      const bad = await send(s.api, channel, { phone_number: '601' }, TEXT, {}, key('retry-1'));
      assert.equal(bad.status, 422);
      assert.equal((await send(s.api, channel, { phone_number: '+420601123456' }, TEXT, {}, key('retry-1'))).status, 201);
    });

    test('a send the platform refused answers the same 502 again and is not sent twice', async () => {
      const bot = await createChannel(s.api, 'botmsg');
      const contact = s.runtime.ids.nextNumber();
      await s.runtime.store.contacts.insert(contactRow({ id: contact, account_id: s.accountId, channel_id: Number(bot), external_id: '1' }));
      const first = await send(s.api, bot, { id: String(contact) }, TEXT, {}, key('bot-1'));
      const second = await send(s.api, bot, { id: String(contact) }, TEXT, {}, key('bot-1'));
      assert.deepEqual([first.status, second.status], [502, 502]);
      assert.equal(second.body.errors[0].message, first.body.errors[0].message);
      assert.equal(await count(s, 'messages', { channel_id: Number(bot) }), 1);
    });
  });
}
