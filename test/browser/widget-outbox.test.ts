import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import type { TestDatabase } from '../helpers/databases.js';
import type { ApiClient } from '../helpers/api-client.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { chromiumMissing, launchChromium, servePage, shopPage, type PageServer } from './helpers/browser.js';

// The widget while the chat server is away and back: what the visitor writes is kept (across a
// reload too) and sent in order exactly once; a refused message is marked and sent again on
// Retry; Enter does what the send button does. Also how messages read: times, safe links, and
// buttons that show they were tapped. The page serves widget.js itself (data-server names the
// chat server), so it loads while the chat server is down.

const browserSkip = chromiumMissing();
const LONG = { timeout: 60_000 };

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['the visitor writes; every message shows its time', 'while the server is away'] })) {
  describe(`Web chat widget: outbox, times, links and buttons in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    let s: TestServer;
    let db: TestDatabase;
    /** The account's client; it keeps working across the restart (same port, same data). */
    let client: ApiClient;
    let hooks: WebhookReceiver;
    let browser: Browser;
    let shop: PageServer;
    let elsewhere: PageServer;
    let page: Page;
    let channelId = '';
    let contactId = '';
    const scripts: Record<string, Buffer> = {};

    before(async () => {
      hooks = await startWebhookReceiver();
      s = await startTestServer(dialect, { workers: true });
      db = s.db;
      client = s.api;
      const created = await client.post('/v1/channels', { type: 'service_chat', name: 'Shoe shop', webhook: { url: hooks.url } });
      channelId = created.body.id;
      hooks.secret = created.body.webhook.secret;
      scripts['/widget.js'] = Buffer.from(await (await fetch(`${s.origin}/widget.js`)).arrayBuffer());
      shop = await servePage(() => shopPage('', channelId, `data-server="${s.origin}"`), {}, scripts);
      elsewhere = await servePage(() => shopPage('', channelId, `data-server="${s.origin}"`), {}, scripts);
      assert.equal((await client.patch(`/v1/channels/${channelId}/settings`, { domains_whitelist: [shop.origin] })).status, 200);
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 900, height: 760 } });
      page.setDefaultTimeout(30_000);
    });
    after(async () => {
      await browser?.close();
      await shop?.close();
      await elsewhere?.close();
      await s?.runtime.close();
      await db?.drop();
      await hooks?.close();
    });

    const log = () => page.getByRole('log', { name: 'Messages' });
    const input = () => page.getByRole('textbox', { name: 'Message' });
    const status = () => page.locator('.header .status');
    const api = (content: unknown) => client.post('/v1/messages', { channel: { id: channelId }, contact: { id: contactId }, content });
    /** The texts of the contact's messages through the API's List Messages, oldest first. */
    const storedTexts = async (contact = contactId) => {
      const list = await client.get(`/v1/channels/${channelId}/contacts/${contact}/messages?max=100`);
      assert.equal(list.status, 200, list.text);
      return (list.body as Array<{ id: string; content: { type: string; payload: unknown } }>)
        .sort((a, b) => Number(a.id) - Number(b.id))
        .map((m) => (m.content.type === 'text' ? String(m.content.payload) : m.content.type));
    };
    /** The outbox's messages shown in the page, in order: [text, state]. */
    const pendingShown = () =>
      page
        .locator('li.pending')
        .evaluateAll((nodes) => nodes.map((n) => [n.querySelector('.bubble')?.textContent ?? '', n.querySelector('.state')?.textContent ?? '']));

    test('the visitor writes; every message shows its time', async () => {
      await page.goto(shop.url('/'));
      await page.getByRole('button', { name: /^Chat with Shoe shop/ }).click();
      await status().getByText('Online').waitFor();
      await input().fill('Before the outage');
      await input().press('Enter');
      const sent = log().locator('li[data-message-id]', { hasText: 'Before the outage' });
      await sent.getByText('Sent', { exact: true }).waitFor();
      const contacts = (await client.get(`/v1/channels/${channelId}/contacts`)).body as Array<{ id: string }>;
      assert.equal(contacts.length, 1);
      contactId = contacts[0]!.id;

      const reply = await api({ type: 'text', payload: 'Welcome!' });
      assert.equal(reply.status, 201, reply.text);
      const time = log().locator(`li[data-message-id="${reply.body.id}"] time`);
      await time.waitFor();
      assert.equal(Date.parse((await time.getAttribute('datetime'))!), Date.parse(reply.body.sent));
      assert.match(await time.innerText(), /\d{1,2}[:.]\d{2}/);
      assert.match((await sent.locator('time').getAttribute('datetime')) ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    test('links in text are anchors to http(s) addresses only, built as text, never as HTML', async () => {
      const text =
        'Sizes: https://shop.example.com/sizes?fit=wide. Not a link: javascript:alert(1) <img src=x onerror=alert(2)> (see https://shop.example.com/a_(b)) or JAVASCRIPT://x';
      const reply = await api({ type: 'text', payload: text });
      assert.equal(reply.status, 201, reply.text);
      const bubble = log().locator(`li[data-message-id="${reply.body.id}"] .bubble`);
      await bubble.waitFor();
      assert.equal(await bubble.textContent(), text);
      const links = await bubble
        .locator('a')
        .evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.textContent, a.getAttribute('rel'), a.getAttribute('target')]));
      assert.deepEqual(links, [
        ['https://shop.example.com/sizes?fit=wide', 'https://shop.example.com/sizes?fit=wide', 'noopener noreferrer', '_blank'],
        ['https://shop.example.com/a_(b)', 'https://shop.example.com/a_(b)', 'noopener noreferrer', '_blank'],
      ]);
      assert.equal(await bubble.locator('img').count(), 0);

      // The visitor's own text too.
      await input().fill('My size chart: http://127.0.0.1:9/chart javascript:void(0)');
      await input().press('Enter');
      const own = log().locator('li[data-message-id]', { hasText: 'My size chart' });
      await own.waitFor();
      assert.deepEqual(await own.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))), ['http://127.0.0.1:9/chart']);
    });

    test('a postback button shows it was tapped and stays used once the site got it', async () => {
      const cards = await api({
        type: 'structure',
        payload: [{ title: 'Trail runner', text: 'Black, size 44', buttons: [{ type: 'postback', title: 'Add to cart', payload: 'ADD_TRAIL' }] }],
      });
      assert.equal(cards.status, 201, cards.text);
      const button = log().locator(`li[data-message-id="${cards.body.id}"]`).getByRole('button', { name: 'Add to cart' });
      await button.click();
      await hooks.waitFor('postback', (e) => e.data.postback.payload === 'ADD_TRAIL');
      assert.equal(await button.getAttribute('aria-pressed'), 'true');
      assert.equal(await button.isDisabled(), true);
    });

    test('while the server is away: messages wait, marked; a reload keeps them; back online they arrive in order exactly once', async () => {
      const cards = await api({
        type: 'structure',
        payload: [{ title: 'City walker', buttons: [{ type: 'postback', title: 'Reserve', payload: 'RESERVE' }] }],
      });
      assert.equal(cards.status, 201);
      const quick = await api({
        type: 'text',
        payload: 'Which size?',
        quick_replies: [
          { type: 'text', title: '44', payload: 'SIZE_44' },
          { type: 'text', title: '45', payload: 'SIZE_45' },
        ],
      });
      assert.equal(quick.status, 201);
      const reserve = log().locator(`li[data-message-id="${cards.body.id}"]`).getByRole('button', { name: 'Reserve' });
      await reserve.waitFor();
      const suggestions = page.getByRole('group', { name: 'Suggested replies' });
      await suggestions.getByRole('button', { name: '44' }).waitFor();
      const port = Number(new URL(s.origin).port);
      const sessionBefore = await page.evaluate(() => localStorage.getItem(Object.keys(localStorage).find((k) => k.startsWith('parley_chat_session_'))!));

      await s.runtime.close();
      // The port stays ours while the server is away (every connection refused at once): another
      // test's server given it meanwhile would take the widget's reconnection.
      const away = await holdPort(port);
      await status().getByText('Offline, reconnecting…').waitFor();

      // A tapped suggestion is pressed, and all of them are disabled until the answer is stored.
      await suggestions.getByRole('button', { name: '44' }).click();
      assert.equal(await suggestions.getByRole('button', { name: '44' }).getAttribute('aria-pressed'), 'true');
      assert.equal(await suggestions.getByRole('button', { name: '44' }).isDisabled(), true);
      assert.equal(await suggestions.getByRole('button', { name: '45' }).isDisabled(), true);
      // A postback cannot wait: the button is offered again, and the visitor is told.
      await reserve.click();
      await page
        .getByRole('alert')
        .getByText(/offline/)
        .waitFor();
      assert.equal(await reserve.isDisabled(), false);
      assert.equal(await reserve.getAttribute('aria-pressed'), null);

      assert.equal(await page.getByRole('button', { name: 'Send message' }).isDisabled(), false);
      await input().fill('First while offline');
      await input().press('Enter');
      await input().fill('Second while offline');
      await page.getByRole('button', { name: 'Send message' }).click();
      assert.deepEqual(await pendingShown(), [
        ['44', 'Waiting for connection'],
        ['First while offline', 'Waiting for connection'],
        ['Second while offline', 'Waiting for connection'],
      ]);
      assert.equal(await page.locator('li.pending time[datetime]').count(), 3);

      await page.reload();
      await page.locator('li.pending').nth(2).waitFor({ state: 'attached' });
      assert.deepEqual(await pendingShown(), [
        ['44', 'Waiting for connection'],
        ['First while offline', 'Waiting for connection'],
        ['Second while offline', 'Waiting for connection'],
      ]);

      // The same server comes back on the same port and data; the widget reconnects by itself.
      await new Promise((resolve) => away.close(resolve));
      s = await startTestServer(dialect, { db, port, workers: true });
      await page.waitForFunction(
        () => {
          const root = document.querySelector('[data-parley-chat]')?.shadowRoot;
          return (
            root !== null &&
            root !== undefined &&
            root.querySelectorAll('li.pending').length === 0 &&
            [...root.querySelectorAll('li[data-message-id]')].some((li) => li.textContent?.includes('Second while offline'))
          );
        },
        undefined,
        LONG,
      );
      assert.deepEqual((await storedTexts()).slice(-3), ['44', 'First while offline', 'Second while offline']);
      const texts = await storedTexts();
      for (const t of ['44', 'First while offline', 'Second while offline']) assert.equal(texts.filter((x) => x === t).length, 1, t);
      const answer = await hooks.waitFor('message_received', (e) => e.data.content.quick_reply?.payload === 'SIZE_44');
      assert.equal(answer.data.contact.id, contactId);
      // Same session, same contact; nothing left in storage to send.
      assert.equal(
        await page.evaluate(() => localStorage.getItem(Object.keys(localStorage).find((k) => k.startsWith('parley_chat_session_'))!)),
        sessionBefore,
      );
      assert.deepEqual(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('parley_chat_outbox_'))), []);
    });

    test('a message the server refuses is marked Not sent, and Retry sends it again', async () => {
      const launcher = page.getByRole('button', { name: /^Chat with Shoe shop/ });
      if ((await launcher.getAttribute('aria-expanded')) !== 'true') await launcher.click();
      await status().getByText('Online').waitFor();
      // The site deletes the conversation: the open connection's next message is refused (404).
      assert.equal((await client.delete(`/v1/channels/${channelId}/contacts/${contactId}`)).status, 204);
      await input().fill('Are you still there?');
      await input().press('Enter');
      const failed = page.locator('li.pending.failed', { hasText: 'Are you still there?' });
      await failed.getByText('Not sent', { exact: true }).waitFor();
      await failed.getByRole('button', { name: 'Retry' }).click();
      await log().locator('li[data-message-id]', { hasText: 'Are you still there?' }).waitFor();
      assert.equal(await page.locator('li.pending').count(), 0);
      const contacts = (await client.get(`/v1/channels/${channelId}/contacts`)).body as Array<{ id: string }>;
      assert.equal(contacts.length, 1);
      assert.notEqual(contacts[0]!.id, contactId, 'a new conversation');
      assert.deepEqual(await storedTexts(contacts[0]!.id), ['Are you still there?']);
    });

    test('on a refused page the send button is disabled, and Enter does not send either', async () => {
      const other = await browser.newPage();
      await other.goto(elsewhere.url('/'));
      await other.getByRole('button', { name: /^Chat with Shoe shop/ }).click();
      await other.getByRole('alert').getByText('This chat is not available on this website.').waitFor();
      assert.equal(await other.getByRole('button', { name: 'Send message' }).isDisabled(), true);
      const field = other.getByRole('textbox', { name: 'Message' });
      await field.fill('Hello?');
      await field.press('Enter');
      assert.equal(await field.inputValue(), 'Hello?');
      assert.equal(await other.locator('li.pending').count(), 0);
      assert.deepEqual(await other.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('parley_chat_outbox_'))), []);
      await other.close();
    });
  });
}

/** A listener on `port` that drops every connection: the port is held, and nothing answers on it. */
function holdPort(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
