import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { openChat, type TestChatClient } from './helpers/chat-clients.js';

const PAGE = 'https://shop.example.com';
const DAY = 86_400_000;

for (const { dialect, skip } of await dialects()) {
  describe(`Web chat: upload bytes, channel storage and unreferenced uploads (${dialect})`, { skip }, () => {
    let s: TestServer;
    // Hourly budgets refill and uploads expire only when the test moves the clock.
    const clock = new ManualClock(Date.now());
    const clients: TestChatClient[] = [];
    before(async () => {
      s = await startTestServer(dialect, {
        clock,
        env: {
          CHAT_MAX_UPLOAD_BYTES: '1000',
          CHAT_UPLOAD_BYTES_PER_SESSION_PER_HOUR: '3000',
          CHAT_UPLOAD_BYTES_PER_ADDRESS_PER_HOUR: '5000',
          CHAT_CHANNEL_STORAGE_BYTES: '5000',
          CHAT_TRUSTED_PROXIES: 'loopback',
        },
      });
    });
    after(async () => {
      for (const c of clients) c.close();
      await s?.close();
    });

    async function chatChannel(): Promise<string> {
      const { body } = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' });
      await s.api.patch(`/v1/channels/${body.id}/settings`, { domains_whitelist: [PAGE] });
      return body.id;
    }
    /** A visitor behind the (trusted, local) proxy, coming from `address`. */
    async function visitor(channelId: string, address: string): Promise<TestChatClient> {
      const { client } = await openChat(s.origin, { channelId, origin: PAGE, headers: { 'x-forwarded-for': address } });
      clients.push(client);
      return client;
    }
    const upload = (client: TestChatClient, name = 'photo.png') =>
      client.request('file_upload', { name, mime_type: 'image/png', content_buffer: Buffer.alloc(1000, 7) });

    test('a session uploads its hourly bytes; the next upload is refused with 429 until the hour refills', async () => {
      const channelId = await chatChannel();
      const a = await visitor(channelId, '192.0.2.1');
      for (let i = 0; i < 3; i++) assert.match((await upload(a)).url ?? '', /\/files\//);
      const refused = await upload(a);
      assert.equal(refused.error_code, 429, JSON.stringify(refused));
      assert.equal(refused.details.field, 'content_buffer');
      assert.equal(refused.details.retry_after, 1200, 'a third of the hour brings back 1000 bytes');
      assert.match(refused.details.message, /this conversation are limited to 3000 bytes an hour/);
      // Another session from the same address has its own hourly bytes.
      assert.match((await upload(await visitor(channelId, '192.0.2.1'))).url ?? '', /\/files\//);
      clock.advance(1_200_000);
      assert.match((await upload(a)).url ?? '', /\/files\//);
    });

    test('an address uploads its hourly bytes over all its sessions and channels; the next upload is refused with 429', async () => {
      const d = await channelAndVisitor('192.0.2.2');
      const e = await channelAndVisitor('192.0.2.2');
      for (const client of [d, d, d, e, e]) assert.match((await upload(client)).url ?? '', /\/files\//);
      const refused = await upload(e);
      assert.equal(refused.error_code, 429, JSON.stringify(refused));
      assert.match(refused.details.message, /your network are limited to 5000 bytes an hour/);
      // The refusal took nothing from the session: another address's session is unaffected.
      const other = await channelAndVisitor('192.0.2.3');
      assert.match((await upload(other)).url ?? '', /\/files\//);
    });
    let fullChannel: TestChatClient | undefined;
    const channelAndVisitor = async (address: string) => visitor(await chatChannel(), address);

    test('a channel keeps 5000 bytes of uploads: the upload reaching it is stored, the next refused with 507', async () => {
      const channelId = await chatChannel();
      const a = await visitor(channelId, '192.0.2.4');
      const b = await visitor(channelId, '192.0.2.5');
      for (const client of [a, a, a, b, b]) assert.match((await upload(client)).url ?? '', /\/files\//);
      fullChannel = b;
      const full = await upload(b);
      assert.equal(full.error_code, 507, JSON.stringify(full));
      assert.equal(full.details.field, 'content_buffer');
      assert.match(full.details.message, /cannot take more files/);
      // Other channels have their own storage.
      assert.match((await upload(await channelAndVisitor('192.0.2.6'))).url ?? '', /\/files\//);
    });

    test('uploads no message names are removed a day later, bytes and rows; named ones stay', async () => {
      const channelId = await chatChannel();
      const c = await visitor(channelId, '192.0.2.7');
      const named = await upload(c, 'named.png');
      const unnamed = await upload(c, 'unnamed.png');
      const sent = await c.request('message_client', { content: { type: 'image', payload: { url: named.url } } });
      assert.equal(sent.direction, 'sent', JSON.stringify(sent));
      const idOf = (url: string) => url.split('/files/')[1]!.split('/')[0]!;
      const row = await s.runtime.store.files.findPublic(idOf(unnamed.url));
      assert.ok(row);
      const path = join(s.runtime.config.filesDir, row.storage_key);
      assert.ok(existsSync(path));

      clock.advance(DAY - 1);
      await s.runtime.sweepUploads();
      assert.equal((await fetch(unnamed.url)).status, 200, 'kept until the day is over');
      clock.advance(1);
      assert.ok((await s.runtime.sweepUploads()) >= 1);
      assert.equal((await fetch(unnamed.url)).status, 404);
      assert.equal(await s.runtime.store.files.findPublic(idOf(unnamed.url)), undefined);
      assert.equal(existsSync(path), false, 'the bytes are gone');
      assert.equal((await fetch(named.url)).status, 200, 'the upload a message names stays');

      // The channel that was full has room again: its uploads were never named and are gone.
      const again = await upload(fullChannel!);
      assert.match(again.url ?? '', /\/files\//, JSON.stringify(again));
    });
  });
}
