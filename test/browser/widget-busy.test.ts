import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dialects, type Dialect } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ManualClock } from '../../src/lib/clock.js';
import { openChat, type TestChatClient } from '../chat/helpers/chat-clients.js';
import { chromiumMissing, launchChromium, servePage, shopPage, type PageServer } from './helpers/browser.js';

// The widget against the web chat's limits. A connection refused for too many connections or new
// sessions from the address (connection_rejected code 4) is temporary: the widget says the chat
// is busy, keeps what the visitor writes, connects again by itself once the limit passes, and then
// sends it, once. Too many messages (429) and a channel whose storage is full (507) are explained.
// The server's clock is a manual one, so a limit passes when the test moves it, not with time.

const browserSkip = chromiumMissing();
const LONG = { timeout: 60_000 };

interface Setup {
  s: TestServer;
  clock: ManualClock;
  shop: PageServer;
  channelId: string;
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['too many new sessions from the address'] })) {
  describe(`Web chat widget under the chat limits in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    let browser: Browser;
    const clients: TestChatClient[] = [];
    before(async () => {
      browser = await launchChromium();
    });
    after(async () => {
      for (const c of clients) c.close();
      await browser?.close();
    });

    /** A server with these chat limits, a whitelisted shop page, and a fresh browser profile. */
    async function setup(d: Dialect, env: Record<string, string>): Promise<Setup> {
      const clock = new ManualClock(Date.now());
      const s = await startTestServer(d, { clock, env });
      const created = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Shoe shop' });
      assert.equal(created.status, 201, created.text);
      const channelId: string = created.body.id;
      const shop = await servePage(() => shopPage(s.origin, channelId));
      assert.equal((await s.api.patch(`/v1/channels/${channelId}/settings`, { domains_whitelist: [shop.origin] })).status, 200);
      const context = await browser.newContext({ viewport: { width: 900, height: 760 } });
      const page = await context.newPage();
      return {
        s,
        clock,
        shop,
        channelId,
        context,
        page,
        async close() {
          await context.close();
          await shop.close();
          await s.close();
        },
      };
    }

    const status = (page: Page) => page.locator('.header .status');
    const input = (page: Page) => page.getByRole('textbox', { name: 'Message' });
    const openWidget = async (page: Page, url: string) => {
      await page.goto(url);
      await page.getByRole('button', { name: /^Chat with Shoe shop/ }).click();
    };
    /** The outbox's messages shown in the page, in order: [text, state]. */
    const pendingShown = (page: Page) =>
      page
        .locator('li.pending')
        .evaluateAll((nodes) => nodes.map((n) => [n.querySelector('.bubble')?.textContent ?? '', n.querySelector('.state')?.textContent ?? '']));
    /** Waits (bounded) until the outbox is empty and the page shows these texts as stored messages. */
    const storedInPage = (page: Page, texts: string[]) =>
      page.waitForFunction(
        (wanted) => {
          const root = document.querySelector('[data-parley-chat]')?.shadowRoot;
          if (!root || root.querySelectorAll('li.pending').length > 0) return false;
          const shown = [...root.querySelectorAll('li[data-message-id]')].map((li) => li.querySelector('.bubble')?.textContent ?? '');
          return wanted.every((t) => shown.includes(t));
        },
        texts,
        LONG,
      );
    /** Every text message of the channel through the API's List Messages, oldest first per contact. */
    const storedTexts = async (x: Setup) => {
      const contacts = await x.s.api.get(`/v1/channels/${x.channelId}/contacts?max=100`);
      assert.equal(contacts.status, 200, contacts.text);
      const texts: string[] = [];
      for (const contact of contacts.body as Array<{ id: string }>) {
        const list = await x.s.api.get(`/v1/channels/${x.channelId}/contacts/${contact.id}/messages?max=100`);
        assert.equal(list.status, 200, list.text);
        const messages = (list.body as Array<{ id: string; content: { type: string; payload: unknown } }>).sort((a, b) => Number(a.id) - Number(b.id));
        for (const m of messages) if (m.content.type === 'text') texts.push(String(m.content.payload));
      }
      return texts;
    };

    test('too many new sessions from the address: the widget says the chat is busy, keeps the message, and sends it once after the wait', LONG, async () => {
      const x = await setup(dialect, { CHAT_SESSIONS_BURST: '1', CHAT_SESSIONS_PER_ADDRESS_PER_MINUTE: '60' });
      try {
        // Another visitor of the same address takes the only new session of the burst.
        const other = await openChat(x.s.origin, { channelId: x.channelId, origin: x.shop.origin });
        clients.push(other.client);

        await openWidget(x.page, x.shop.url('/'));
        await x.page
          .getByRole('alert')
          .getByText(/^The chat is busy right now\. Trying again in \d+ seconds?; your messages are kept and sent then\.$/)
          .waitFor();
        await status(x.page).getByText('Busy, retrying soon…').waitFor();
        assert.equal(await x.page.getByText('This chat is not available.').count(), 0);
        assert.equal(await x.page.getByRole('button', { name: 'Send message' }).isDisabled(), false);
        await input(x.page).fill('Do you have size 44?');
        await input(x.page).press('Enter');
        await input(x.page).fill('In black?');
        await input(x.page).press('Enter');
        assert.deepEqual(await pendingShown(x.page), [
          ['Do you have size 44?', 'Waiting for connection'],
          ['In black?', 'Waiting for connection'],
        ]);

        // The address may start a new session again; the widget comes back by itself.
        x.clock.advance(60_000);
        await storedInPage(x.page, ['Do you have size 44?', 'In black?']);
        await status(x.page).getByText('Online').waitFor();
        assert.equal(await x.page.getByRole('alert').isHidden(), true);
        assert.deepEqual(await storedTexts(x), ['Do you have size 44?', 'In black?']);
        const contacts = await x.s.api.get(`/v1/channels/${x.channelId}/contacts?max=100`);
        assert.equal(contacts.body.length, 2, 'the other visitor and this one');
      } finally {
        await x.close();
      }
    });

    test('too many connections from the address: the widget connects when one closes, and sends what waited', LONG, async () => {
      const x = await setup(dialect, { CHAT_CONNECTIONS_PER_ADDRESS: '1' });
      try {
        const other = await openChat(x.s.origin, { channelId: x.channelId, origin: x.shop.origin });
        clients.push(other.client);

        await openWidget(x.page, x.shop.url('/'));
        await x.page
          .getByRole('alert')
          .getByText(/^The chat is busy right now\./)
          .waitFor();
        await input(x.page).fill('Is the shop open on Sunday?');
        await input(x.page).press('Enter');
        assert.deepEqual(await pendingShown(x.page), [['Is the shop open on Sunday?', 'Waiting for connection']]);

        other.client.close();
        await storedInPage(x.page, ['Is the shop open on Sunday?']);
        assert.deepEqual(await storedTexts(x), ['Is the shop open on Sunday?']);
      } finally {
        await x.close();
      }
    });

    test('too many messages at once (429): the widget says they are kept, and sends them in order once it may', LONG, async () => {
      // The history read on connecting is one event; two messages pass, the third waits.
      const x = await setup(dialect, { CHAT_EVENTS_BURST: '3', CHAT_EVENTS_PER_SECOND: '1' });
      try {
        await openWidget(x.page, x.shop.url('/'));
        await status(x.page).getByText('Online').waitFor();
        for (const text of ['One', 'Two', 'Three']) {
          await input(x.page).fill(text);
          await input(x.page).press('Enter');
        }
        await x.page
          .getByRole('alert')
          .getByText(/^Too many messages at once\. Yours are kept and sent in \d+ seconds?\.$/)
          .waitFor();
        x.clock.advance(10_000);
        await storedInPage(x.page, ['One', 'Two', 'Three']);
        await x.page.getByRole('alert').waitFor({ state: 'hidden' });
        assert.deepEqual(await storedTexts(x), ['One', 'Two', 'Three']);
      } finally {
        await x.close();
      }
    });

    test("the channel's storage is full (507): the upload is refused with a clear message, and the typed text stays", LONG, async () => {
      const x = await setup(dialect, { CHAT_CHANNEL_STORAGE_BYTES: '1000' });
      try {
        await openWidget(x.page, x.shop.url('/'));
        await status(x.page).getByText('Online').waitFor();
        await input(x.page).fill('Here is the receipt');
        await x.page.locator('input[type=file]').setInputFiles({ name: 'receipt.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(2000, 7) });
        await x.page
          .getByRole('alert')
          .getByText('This chat cannot take files right now: its storage is full. You can still send your message as text.')
          .waitFor();
        await x.page.locator('li.msg', { hasText: 'receipt.pdf' }).getByText('Not sent: no room for files').waitFor();
        assert.equal(await input(x.page).inputValue(), 'Here is the receipt');

        await input(x.page).press('Enter');
        await storedInPage(x.page, ['Here is the receipt']);
        assert.deepEqual(await storedTexts(x), ['Here is the receipt']);
      } finally {
        await x.close();
      }
    });
  });
}
