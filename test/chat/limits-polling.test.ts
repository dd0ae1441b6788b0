import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { openChat, type ClientVersion, type TestChatClient } from './helpers/chat-clients.js';

const PAGE = 'https://shop.example.com';
const MAX = 2 * 1024 * 1024;

/** The acknowledgement, or a failure as soon as the connection drops instead. */
async function upload(client: TestChatClient, bytes: Buffer): Promise<any> {
  const from = client.events.length;
  const dropped = client.first(['disconnect'], { from, timeoutMs: 30_000 }).then((e) => {
    throw new Error(`the connection dropped: ${JSON.stringify(e.data)}`);
  });
  dropped.catch(() => undefined);
  return Promise.race([client.request('file_upload', { name: 'big.bin', mime_type: 'application/octet-stream', content_buffer: bytes }, 30_000), dropped]);
}

// Over long-polling, binary travels base64-encoded, a third larger than the file: an upload of
// the largest allowed size must still fit the transport, and one just above it must get its
// 413 acknowledgement rather than a dropped connection.
describe('Web chat: uploads near the limit over long-polling', () => {
  let s: TestServer;
  let channelId: string;
  before(async () => {
    s = await startTestServer('sqlite', { env: { CHAT_MAX_UPLOAD_BYTES: String(MAX) } });
    channelId = (await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' })).body.id;
    await s.api.patch(`/v1/channels/${channelId}/settings`, { domains_whitelist: [PAGE] });
  });
  after(async () => s?.close());

  for (const version of [4, 2] as ClientVersion[]) {
    test(`socket.io-client ${version}.x on polling: a file of exactly the limit is stored, one byte more is refused with 413`, async () => {
      const { client } = await openChat(s.origin, { version, channelId, origin: PAGE, transports: ['polling'] });
      try {
        const bytes = randomBytes(MAX);
        const ack = await upload(client, bytes);
        assert.equal(ack.error_code, undefined, JSON.stringify(ack));
        const res = await fetch(ack.url);
        assert.equal(res.status, 200);
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes), 'the stored bytes are the uploaded ones');

        const over = await upload(client, randomBytes(MAX + 1));
        assert.equal(over.error_code, 413, JSON.stringify(over));
        assert.equal(over.details.field, 'content_buffer');
        // The connection is still there.
        const after = await client.request('list_messages', {});
        assert.ok(Array.isArray(after.messages), JSON.stringify(after));
        assert.deepEqual(client.received('disconnect'), []);
      } finally {
        client.close();
      }
    });
  }
});
