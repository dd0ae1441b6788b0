import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { chromiumMissing, launchChromium, servePage, type PageServer } from './helpers/browser.js';

// Web chat SDKs built on socket.io-client 2.x poll with credentials (withCredentials). In a real
// browser, from a page on another origin, held to long-polling: a whitelisted page connects,
// sends, gets the site's reply and reads the history; a page that is not listed cannot connect.

const require = createRequire(import.meta.url);
const V2_BUNDLE = readFileSync(require.resolve('socket.io-client-v2/dist/socket.io.js'));

interface PageEvent {
  event: string;
  data: any;
}

/** A page that connects with the 2.x bundle and records what the server sends; window.emitAck drives it. */
function legacyPage(server: string, channelId: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Legacy SDK</title></head>
<body><script src="/socket.io-v2.js"></script>
<script>
  window.received = [];
  const socket = io(${JSON.stringify(server)}, { transports: ['polling'], query: { v: '1', channel_id: ${JSON.stringify(channelId)} }, reconnection: false, forceNew: true });
  for (const name of ['connection_accepted', 'connection_rejected', 'message_server', 'connect_error', 'error', 'disconnect']) {
    socket.on(name, (data) => window.received.push({ event: name, data: data instanceof Error ? String(data) : (data ?? null) }));
  }
  window.transportName = () => socket.io.engine && socket.io.engine.transport.name;
  window.emitAck = (event, data) => new Promise((resolve) => socket.emit(event, data, resolve));
  window.uploadBytes = (n) => window.emitAck('file_upload', { name: 'note.bin', mime_type: 'application/octet-stream', content_buffer: new Uint8Array(n).map((_, i) => i % 256).buffer });
</script></body></html>`;
}

const browserSkip = chromiumMissing();

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['a whitelisted page connects, sends, receives'] })) {
  describe(`socket.io-client 2.x in Chromium, long-polling with credentials (${dialect})`, { skip: skip || browserSkip }, () => {
    let s: TestServer;
    let browser: Browser;
    let listed: PageServer;
    let unlisted: PageServer;
    let channelId = '';

    before(async () => {
      s = await startTestServer(dialect);
      channelId = (await s.api.post('/v1/channels', { type: 'service_chat', name: 'Legacy SDK' })).body.id;
      const scripts = { '/socket.io-v2.js': V2_BUNDLE };
      listed = await servePage(() => legacyPage(s.origin, channelId), {}, scripts);
      unlisted = await servePage(() => legacyPage(s.origin, channelId), {}, scripts);
      assert.equal((await s.api.patch(`/v1/channels/${channelId}/settings`, { domains_whitelist: [listed.origin] })).status, 200);
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await listed?.close();
      await unlisted?.close();
      await s?.close();
    });

    const received = (page: Page) => page.evaluate(() => (window as unknown as { received: PageEvent[] }).received);
    const waitForEvent = async (page: Page, name: string, match: string | null = null): Promise<PageEvent> => {
      await page.waitForFunction(
        ([n, m]) => (window as unknown as { received: PageEvent[] }).received.some((e) => e.event === n && (m === null || JSON.stringify(e.data).includes(m))),
        [name, match] as const,
      );
      return (await received(page)).find((e) => e.event === name && (match === null || JSON.stringify(e.data).includes(match)))!;
    };
    const emitAck = (page: Page, event: string, data: unknown) =>
      page.evaluate(([e, d]) => (window as unknown as { emitAck(e: string, d: unknown): Promise<any> }).emitAck(e, d), [event, data] as const);

    test('a whitelisted page connects, sends, receives a reply sent through the API and reads the history', async () => {
      const page = await browser.newPage();
      const refusedRequests: string[] = [];
      page.on('requestfailed', (r) => refusedRequests.push(`${r.method()} ${r.url()} ${r.failure()?.errorText ?? ''}`));
      await page.goto(listed.url('/'));
      const accepted = await waitForEvent(page, 'connection_accepted');
      assert.match(accepted.data.session_id, /^[A-Za-z0-9]{40}$/);
      assert.equal(await page.evaluate(() => (window as unknown as { transportName(): string }).transportName()), 'polling');

      const sent = await emitAck(page, 'message_client', { content: { type: 'text', payload: 'Hello from an old SDK' } });
      assert.equal(sent.error_code, undefined, JSON.stringify(sent));
      assert.equal(sent.direction, 'sent');
      const contacts = (await s.api.get(`/v1/channels/${channelId}/contacts`)).body as Array<{ id: string }>;
      assert.equal(contacts.length, 1);
      const contactId = contacts[0]!.id;

      const reply = await s.api.post('/v1/messages', {
        channel: { id: channelId },
        contact: { id: contactId },
        content: { type: 'text', payload: 'Hello, old friend' },
      });
      assert.equal(reply.status, 201, reply.text);
      const pushed = await waitForEvent(page, 'message_server', 'Hello, old friend');
      assert.equal(pushed.data.id, reply.body.id);
      assert.equal(pushed.data.direction, 'received');

      const history = await emitAck(page, 'list_messages', { pagination: { max: 10 } });
      assert.deepEqual(
        history.messages.map((m: { id: string; direction: string }) => [m.id, m.direction]),
        [
          [reply.body.id, 'received'],
          [sent.id, 'sent'],
        ],
      );

      // Binary data goes out as application/octet-stream, which the browser preflights.
      const upload = await page.evaluate(() => (window as unknown as { uploadBytes(n: number): Promise<any> }).uploadBytes(300));
      assert.equal(upload.error_code, undefined, JSON.stringify(upload));
      assert.match(upload.url, new RegExp(`^${s.baseUrl}/files/[A-Za-z0-9]{32}/note\\.bin$`));

      assert.deepEqual(refusedRequests, []);
      assert.equal((await received(page)).filter((e) => e.event === 'connect_error' || e.event === 'error').length, 0);
      await page.close();
    });

    test('a page that is not listed cannot connect, and no conversation is made for it', async () => {
      const before = ((await s.api.get(`/v1/channels/${channelId}/contacts`)).body as unknown[]).length;
      const page = await browser.newPage();
      await page.goto(unlisted.url('/'));
      await waitForEvent(page, 'connect_error');
      const events = await received(page);
      assert.equal(
        events.some((e) => e.event === 'connection_accepted'),
        false,
      );
      await page.close();
      assert.equal(((await s.api.get(`/v1/channels/${channelId}/contacts`)).body as unknown[]).length, before);
    });
  });
}
