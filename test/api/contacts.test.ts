import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { count, createChannel, fakeConnectors, send } from './messages-fixtures.js';
import { contactRow } from '../helpers/store-rows.js';

const TEXT = { type: 'text', payload: 'Hello' };

for (const { dialect, skip } of await dialects()) {
  describe(`Contacts API (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestApp(dialect, { connectors: fakeConnectors().registry });
    });
    after(async () => s?.close());

    async function insertContact(channel: string, fields: Record<string, unknown> = {}): Promise<string> {
      const id = s.runtime.ids.nextNumber();
      await s.runtime.store.contacts.insert(contactRow({ id, account_id: s.accountId, channel_id: Number(channel), external_id: `ext-${id}`, ...fields }));
      return String(id);
    }

    test('List Contacts: newest first, max/offset, x-total-count', async () => {
      const channel = await createChannel(s.api, 'mobile', 'test');
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await send(s.api, channel, { phone_number: `+42060100000${i}` }, TEXT)).body.contact.id);
      const all = await s.api.get(`/v1/channels/${channel}/contacts`);
      assert.equal(all.status, 200);
      assert.equal(all.headers.get('x-total-count'), '4');
      assert.deepEqual(
        all.body.map((c: { id: string }) => c.id),
        [...ids].reverse(),
      );
      const page = await s.api.get(`/v1/channels/${channel}/contacts?max=2&offset=1`);
      assert.deepEqual(
        page.body.map((c: { id: string }) => c.id),
        [ids[2], ids[1]],
      );
      assert.equal(page.headers.get('x-total-count'), '4');
      assert.equal((await s.api.get(`/v1/channels/${channel}/contacts?offset=-1`)).status, 422);
      const empty = await s.api.get(`/v1/channels/${await createChannel(s.api, 'mobile', 'test')}/contacts`);
      assert.deepEqual(empty.body, []);
      assert.equal(empty.headers.get('x-total-count'), '0');
    });

    /** A stored message of the contact at a chosen time (the trigger of migrations 018 and 019 reads created_at). */
    async function insertMessage(channel: string, contact: string, createdAt: number): Promise<void> {
      await s.runtime.store.messages.insert({
        id: s.runtime.ids.nextNumber(),
        account_id: s.accountId,
        channel_id: Number(channel),
        contact_id: Number(contact),
        direction: 'received',
        content: JSON.stringify(TEXT),
        metadata: null,
        status: 'received',
        external_id: null,
        error: null,
        idempotency_key: null,
        request_hash: null,
        sent_at: createdAt,
        delivered_at: null,
        read_at: null,
        created_at: createdAt,
      });
    }

    const idsOf = (body: Array<{ id: string }>) => body.map((c) => c.id);

    test('List Contacts order=last_activity: newest message first (to the second), ties to the newer contact, contacts without messages last', async () => {
      const channel = await createChannel(s.api, 'service_chat');
      const [a, b, c, d] = [await insertContact(channel), await insertContact(channel), await insertContact(channel), await insertContact(channel)];
      const second = 1000;
      await insertMessage(channel, a!, 3 * second);
      await insertMessage(channel, b!, 1 * second);
      await insertMessage(channel, c!, 3 * second);
      const list = async (query = '') => {
        const res = await s.api.get(`/v1/channels/${channel}/contacts?order=last_activity${query}`);
        assert.equal(res.status, 200, res.text);
        return { ids: idsOf(res.body), total: res.headers.get('x-total-count') };
      };
      assert.deepEqual(await list(), { ids: [c, a, b, d], total: '4' });
      // An older message does not move a contact back; one a second newer or more moves it to the top.
      await insertMessage(channel, c!, second / 2);
      await insertMessage(channel, b!, 2 * second);
      assert.deepEqual((await list()).ids, [c, a, b, d]);
      await insertMessage(channel, b!, 4 * second);
      assert.deepEqual((await list()).ids, [b, c, a, d]);
      // The time is kept to the second: a message less than a second newer leaves it.
      await insertMessage(channel, a!, 3 * second + second - 1);
      assert.deepEqual((await list()).ids, [b, c, a, d]);
      await insertMessage(channel, a!, 5 * second);
      assert.deepEqual((await list()).ids, [a, b, c, d]);
      assert.deepEqual(await list('&max=2&offset=1'), { ids: [b, c], total: '4' });
      assert.deepEqual(await list('&offset=4'), { ids: [], total: '4' });
      // The specification's order is unchanged by activity: newest contact first.
      const plain = await s.api.get(`/v1/channels/${channel}/contacts`);
      assert.deepEqual(idsOf(plain.body), [d, c, b, a]);
      assert.deepEqual(idsOf((await s.api.get(`/v1/channels/${channel}/contacts?order=newest`)).body), [d, c, b, a]);
      assert.equal((await s.api.get(`/v1/channels/${channel}/contacts?order=oldest`)).status, 422);
    });

    test('order=last_activity follows Send Message to the second, also for concurrent sends to the same contacts', async () => {
      // A clock of its own: the sends' times are chosen, not waited for.
      const clock = new ManualClock(Date.UTC(2026, 5, 1, 9, 0, 0));
      const own = await startTestApp(dialect, { connectors: fakeConnectors().registry, clock });
      try {
        const channel = await createChannel(own.api, 'mobile', 'test');
        const numbers = ['+420601200000', '+420601200001', '+420601200002', '+420601200003'];
        const sendTo = (n: number) => send(own.api, channel, { phone_number: numbers[n]! }, TEXT);
        const activity = async () => {
          const rows = await own.runtime.store.db.selectFrom('contacts').select(['id', 'last_activity_at']).where('channel_id', '=', Number(channel)).execute();
          return new Map(rows.map((r) => [String(r.id), Number(r.last_activity_at)]));
        };
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => sendTo((i * 7) % 4)));
        for (const r of results) assert.equal(r.status, 201, r.text);
        const idOf = (n: number) => results.find((r) => r.body.contact.phone_number === numbers[n])!.body.contact.id as string;
        const start = clock.now();
        assert.deepEqual(await activity(), new Map(numbers.map((_, n) => [idOf(n), start])));
        // Less than a second later the stored time stays; a second or more later it moves.
        clock.advance(400);
        assert.equal((await sendTo(0)).status, 201);
        assert.equal((await activity()).get(idOf(0)), start);
        clock.advance(600);
        assert.equal((await sendTo(0)).status, 201);
        assert.equal((await activity()).get(idOf(0)), start + 1000);
        assert.equal((await own.api.get(`/v1/channels/${channel}/contacts?order=last_activity&max=1`)).body[0].id, idOf(0));
      } finally {
        await own.close();
      }
    });

    test('List Contacts q: name, phone number, e-mail or user reference contains it, any case; wildcards are plain text', async () => {
      const channel = await createChannel(s.api, 'service_chat');
      const eva = await insertContact(channel, { name: 'Eva Nováková', phone_number: '+420601300001' });
      const petr = await insertContact(channel, { name: 'Petr', email: 'petr.svoboda@example.com' });
      const ref = await insertContact(channel, { user_ref: 'Ref_50%' });
      const none = await insertContact(channel);
      await insertMessage(channel, petr, 10_000);
      const search = async (q: string, extra = '') => {
        const res = await s.api.get(`/v1/channels/${channel}/contacts?q=${encodeURIComponent(q)}${extra}`);
        assert.equal(res.status, 200, res.text);
        return { ids: idsOf(res.body), total: res.headers.get('x-total-count') };
      };
      assert.deepEqual(await search('eva'), { ids: [eva], total: '1' });
      assert.deepEqual(await search('EVA NOV'), { ids: [eva], total: '1' });
      assert.deepEqual(await search('601300'), { ids: [eva], total: '1' });
      assert.deepEqual(await search('SVOBODA@'), { ids: [petr], total: '1' });
      assert.deepEqual(await search('ref_50%'), { ids: [ref], total: '1' });
      assert.deepEqual(await search('e'), { ids: [ref, petr, eva], total: '3' });
      assert.deepEqual(await search('e', '&order=last_activity'), { ids: [petr, ref, eva], total: '3' });
      assert.deepEqual(await search('e', '&max=1&offset=1'), { ids: [petr], total: '3' });
      // % and _ match only themselves: a search for them is not "everything".
      assert.deepEqual(await search('%'), { ids: [ref], total: '1' });
      assert.deepEqual(await search('_'), { ids: [ref], total: '1' });
      assert.deepEqual(await search('nobody'), { ids: [], total: '0' });
      // A contact named by its id (no name or address) is found by it; a part of an id is not a match.
      assert.deepEqual(await search(none), { ids: [none], total: '1' });
      assert.deepEqual(await search(none.slice(0, -1) + '#'), { ids: [], total: '0' });
      // Blank is no search: the whole list.
      assert.deepEqual(await search('  '), { ids: [none, ref, petr, eva], total: '4' });
      assert.equal((await s.api.get(`/v1/channels/${channel}/contacts?q=${'x'.repeat(101)}`)).status, 422);
      // Another channel's contacts are never found.
      const other = await createChannel(s.api, 'service_chat');
      await insertContact(other, { name: 'Eva' });
      assert.deepEqual(await search('eva'), { ids: [eva], total: '1' });
    });

    test('fields per channel type and the default names', async () => {
      const mobile = await createChannel(s.api, 'mobile', 'test');
      const m = await send(s.api, mobile, { phone_number: '+420601123456' }, TEXT);
      assert.deepEqual((await s.api.get(`/v1/channels/${mobile}/contacts/${m.body.contact.id}`)).body, {
        id: m.body.contact.id,
        name: '+420601123456',
        phone_number: '+420601123456',
      });

      const rbm = await createChannel(s.api, 'rbm', 'test');
      const r = await send(s.api, rbm, { phone_number: '+420601123456' }, TEXT);
      assert.equal((await s.api.get(`/v1/channels/${rbm}/contacts/${r.body.contact.id}`)).body.name, '+420601123456');

      const chat = await createChannel(s.api, 'service_chat');
      const chatContact = await insertContact(chat);
      assert.deepEqual((await s.api.get(`/v1/channels/${chat}/contacts/${chatContact}`)).body, { id: chatContact, name: chatContact });

      const email = await createChannel(s.api, 'email');
      const e = await send(s.api, email, { email: 'Eva@Example.com', name: 'Eva' }, TEXT);
      assert.equal(e.status, 201, e.text);
      assert.deepEqual((await s.api.get(`/v1/channels/${email}/contacts/${e.body.contact.id}`)).body, {
        id: e.body.contact.id,
        name: 'Eva',
        email: 'eva@example.com',
      });
      const again = await send(s.api, email, { email: 'eva@example.com' }, TEXT);
      assert.equal(again.body.contact.id, e.body.contact.id);
      assert.equal((await send(s.api, email, { id: e.body.contact.id }, TEXT)).status, 201);

      const page = await createChannel(s.api, 'socialnet_chat');
      const withProfile = await insertContact(page, {
        user_ref: 'ref-9',
        name: 'Petr',
        profile: JSON.stringify({ gender: 'male', time_zone: 1, photo_url: 'https://example.com/p.png' }),
      });
      assert.deepEqual((await s.api.get(`/v1/channels/${page}/contacts/${withProfile}`)).body, {
        id: withProfile,
        name: 'Petr',
        user_ref: 'ref-9',
        gender: 'male',
        time_zone: 1,
        photo_url: 'https://example.com/p.png',
      });
      const byRef = await send(s.api, page, { user_ref: 'ref-9' }, TEXT);
      assert.equal(byRef.status, 201);
      assert.deepEqual(byRef.body.contact, { id: withProfile, user_ref: 'ref-9' });
    });

    test("Get Contact: unknown, malformed, another channel's and another account's are 404", async () => {
      const channel = await createChannel(s.api, 'mobile', 'test');
      const otherChannel = await createChannel(s.api, 'mobile', 'test');
      const c = (await send(s.api, channel, { phone_number: '+420601123456' }, TEXT)).body.contact.id;
      assert.equal((await s.api.get(`/v1/channels/${channel}/contacts/${c}`)).status, 200);
      assert.equal((await s.api.get(`/v1/channels/${otherChannel}/contacts/${c}`)).status, 404);
      assert.equal((await s.api.get(`/v1/channels/${channel}/contacts/1`)).status, 404);
      assert.equal((await s.api.get(`/v1/channels/${channel}/contacts/x`)).status, 404);
      assert.equal((await s.api.get(`/v1/channels/1/contacts/${c}`)).status, 404);
      const other = await s.newAccount();
      assert.equal((await other.api.get(`/v1/channels/${channel}/contacts/${c}`)).status, 404);
      assert.equal((await other.api.get(`/v1/channels/${channel}/contacts`)).status, 404);
      assert.equal((await other.api.delete(`/v1/channels/${channel}/contacts/${c}`)).status, 404);
    });

    test('Delete Contact: 204, and its messages, events, pending deliveries, files and stored bytes go with it', async () => {
      const channel = await createChannel(s.api, 'mobile', 'test', { webhook: { url: 'https://example.com/hook' } });
      const gone = await send(s.api, channel, { phone_number: '+420601000010' }, TEXT);
      const second = await send(s.api, channel, { phone_number: '+420601000010' }, TEXT);
      const kept = await send(s.api, channel, { phone_number: '+420601000011' }, TEXT);
      const contactId = Number(gone.body.contact.id);
      // A stored attachment of the contact: the row and its bytes in the file store.
      const filesDir = s.runtime.config.filesDir;
      mkdirSync(join(filesDir, 'ab'), { recursive: true });
      const bytes = join(filesDir, 'ab', 'photo.png');
      writeFileSync(bytes, 'png');
      await s.runtime.store.files.insert({
        id: `f${contactId}`,
        account_id: s.accountId,
        channel_id: Number(channel),
        contact_id: contactId,
        name: 'photo.png',
        mime_type: 'image/png',
        size: 3,
        storage_key: 'ab/photo.png',
        created_at: 1,
      });
      // An event about no single message names the contact itself (events about a message name the message).
      await s.runtime.store.events.insertEvent({
        id: 9_000_000 + (contactId % 1_000_000),
        account_id: s.accountId,
        channel_id: Number(channel),
        contact_id: contactId,
        message_id: null,
        type: 'messages_read',
        body: '{}',
        created_at: 1,
      });
      const eventsOfContact = async () => {
        const rows = await s.runtime.store.db
          .selectFrom('events')
          .select('id')
          .where((eb) => eb.or([eb('contact_id', '=', contactId), eb('message_id', 'in', [Number(gone.body.id), Number(second.body.id)])]))
          .execute();
        return rows.length;
      };
      assert.equal(await count(s, 'messages', { contact_id: contactId }), 2);
      assert.equal(await eventsOfContact(), 3);
      assert.equal(await count(s, 'deliveries', { channel_id: Number(channel) }), 3);

      const res = await s.api.delete(`/v1/channels/${channel}/contacts/${contactId}`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal(await count(s, 'messages', { contact_id: contactId }), 0);
      assert.equal(await eventsOfContact(), 0);
      assert.equal(await count(s, 'deliveries', { channel_id: Number(channel) }), 1);
      assert.equal(await count(s, 'files', { contact_id: contactId }), 0);
      assert.equal(existsSync(bytes), false);
      assert.equal((await s.api.get(`/v1/channels/${channel}/contacts/${contactId}`)).status, 404);
      assert.equal((await s.api.get(`/v1/messages/${gone.body.id}`)).status, 404);
      assert.equal((await s.api.get(`/v1/messages/${kept.body.id}`)).status, 200);
      assert.equal((await s.api.delete(`/v1/channels/${channel}/contacts/${contactId}`)).status, 404);

      // The number is new again: the next send makes a new contact (no stale cache).
      const again = await send(s.api, channel, { phone_number: '+420601000010' }, TEXT);
      assert.equal(again.status, 201);
      assert.notEqual(again.body.contact.id, String(contactId));
    });

    test("a contact deleted behind this process's back (another instance) is made again on the next send", async () => {
      const channel = await createChannel(s.api, 'mobile', 'test');
      const first = await send(s.api, channel, { phone_number: '+420601000020' }, TEXT);
      await s.runtime.store.contacts.delete(s.accountId, Number(channel), Number(first.body.contact.id));
      const second = await send(s.api, channel, { phone_number: '+420601000020' }, TEXT);
      assert.equal(second.status, 201, second.text);
      assert.notEqual(second.body.contact.id, first.body.contact.id);
      assert.equal(await count(s, 'contacts', { channel_id: Number(channel) }), 1);
    });
  });
}
