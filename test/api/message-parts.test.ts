import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { count, createChannel, fakeConnectors, send } from './messages-fixtures.js';

const text = (payload: string, extra: Record<string, unknown> = {}) => ({ type: 'text', payload, ...extra });

for (const { dialect, skip } of await dialects()) {
  describe(`SMS parts and encoding of a message on Get Message and List Messages (${dialect})`, { skip }, () => {
    let s: TestServer;
    let mobileTest: string;
    let mobileLive: string;
    let chat: string;
    let phone = 0;
    before(async () => {
      s = await startTestApp(dialect, { connectors: fakeConnectors().registry });
      mobileTest = await createChannel(s.api, 'mobile', 'test');
      mobileLive = await createChannel(s.api, 'mobile');
      chat = await createChannel(s.api, 'socialnet_chat');
    });
    after(async () => s?.close());

    /** Sends to a new number and answers the message as Get Message and List Messages show it. */
    async function sent(channel: string, content: unknown): Promise<{ get: any; listed: any; answer: any }> {
      phone += 1;
      const res = await send(s.api, channel, { phone_number: `+4206015${String(phone).padStart(5, '0')}` }, content);
      assert.equal(res.status, 201, res.text);
      const got = await s.api.get(`/v1/messages/${res.body.id}`);
      assert.equal(got.status, 200, got.text);
      const list = await s.api.get(`/v1/channels/${channel}/contacts/${res.body.contact.id}/messages`);
      assert.equal(list.status, 200, list.text);
      const listed = (list.body as any[]).find((m) => m.id === res.body.id);
      assert.ok(listed, list.text);
      return { get: got.body, listed, answer: res.body };
    }

    async function partsOf(content: unknown, channel = mobileTest): Promise<unknown> {
      const { get, listed, answer } = await sent(channel, content);
      // The Send Message answer keeps the shape of the specification.
      assert.ok(!('parts' in answer), JSON.stringify(answer));
      assert.deepEqual(listed.parts, get.parts);
      return get.parts;
    }

    test('GSM-7: 160 characters are one part, 161 two (153 each); an extension character counts twice', async () => {
      assert.deepEqual(await partsOf(text('a'.repeat(160))), { count: 1, encoding: 'gsm7' });
      assert.deepEqual(await partsOf(text('a'.repeat(161))), { count: 2, encoding: 'gsm7' });
      assert.deepEqual(await partsOf(text('a'.repeat(306))), { count: 2, encoding: 'gsm7' });
      assert.deepEqual(await partsOf(text('a'.repeat(307))), { count: 3, encoding: 'gsm7' });
      assert.deepEqual(await partsOf(text('€'.repeat(80))), { count: 1, encoding: 'gsm7' });
      assert.deepEqual(await partsOf(text('€'.repeat(81))), { count: 2, encoding: 'gsm7' });
    });

    test('UCS-2: 70 characters are one part, 71 two (67 each); an emoji takes two units', async () => {
      assert.deepEqual(await partsOf(text('ř'.repeat(70))), { count: 1, encoding: 'ucs2' });
      assert.deepEqual(await partsOf(text('ř'.repeat(71))), { count: 2, encoding: 'ucs2' });
      assert.deepEqual(await partsOf(text('😀'.repeat(35))), { count: 1, encoding: 'ucs2' });
      assert.deepEqual(await partsOf(text('😀'.repeat(36))), { count: 2, encoding: 'ucs2' });
    });

    test('counted on the text as sent: numbered quick replies after the text, a file as its link', async () => {
      const yes = { quick_replies: [{ type: 'text', title: 'Yes', payload: 'Y' }] };
      // 153 + "\n1. Yes" (7) = 160; one more is 161.
      assert.deepEqual(await partsOf(text('a'.repeat(153), yes)), { count: 1, encoding: 'gsm7' });
      assert.deepEqual(await partsOf(text('a'.repeat(154), yes)), { count: 2, encoding: 'gsm7' });
      // A quick reply's title alone can make the text UCS-2.
      assert.deepEqual(await partsOf(text('a'.repeat(60), { quick_replies: [{ type: 'text', title: 'Ano ✓', payload: 'Y' }] })), {
        count: 1,
        encoding: 'ucs2',
      });
      const url = `https://example.com/${'p'.repeat(150)}.png`;
      assert.deepEqual(await partsOf({ type: 'image', payload: { url } }), { count: 2, encoding: 'gsm7' });
    });

    test('a queued production message has its parts from the start; messages of other types have none', async () => {
      assert.deepEqual(await partsOf(text('ř'.repeat(71)), mobileLive), { count: 2, encoding: 'ucs2' });
      assert.equal(await count(s, 'jobs'), 1);
      const other = await sent(chat, text('a'.repeat(500)));
      assert.ok(!('parts' in other.get) && !('parts' in other.listed), JSON.stringify(other.get));
    });

    test('stored once with the message row', async () => {
      const { get } = await sent(mobileTest, text('b'.repeat(161)));
      const row = await s.runtime.store.db
        .selectFrom('messages')
        .select(['part_count', 'part_encoding'])
        .where('id', '=', Number(get.id))
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { part_count: 2, part_encoding: 'gsm7' });
    });
  });
}
