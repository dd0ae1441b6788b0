import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { chromiumMissing, launchChromium, ownInterfacePage, servePage, shopPage, type PageServer } from './helpers/browser.js';
import { shoePicture } from './helpers/images.js';

// The web chat in a real browser: a page on a whitelisted origin loads the widget with one script
// tag; the user talks to the site, whose webhook receiver checks every signature; replies sent
// through the API appear in the page; a page on an origin not listed is refused.

const PNG = shoePicture([30, 60, 110]);
const PICTURES = { '/img/trail.png': shoePicture([40, 44, 52]), '/img/city.png': shoePicture([120, 72, 40]), '/img/boot.png': shoePicture([90, 60, 30]) };

const browserSkip = chromiumMissing();

for (const { dialect, skip, test } of await dialects({
  postgresSmoke: ['the script tag puts a launcher on the page', 'the user sends text; the site receives', 'a reply through the API appears'],
})) {
  describe(`Web chat widget in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    let s: TestServer;
    let hooks: WebhookReceiver;
    let browser: Browser;
    let shop: PageServer;
    let elsewhere: PageServer;
    let channelId = '';
    let page: Page;
    let contactId = '';

    before(async () => {
      hooks = await startWebhookReceiver();
      s = await startTestServer(dialect, { workers: true });
      const created = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Shoe shop', webhook: { url: hooks.url } });
      channelId = created.body.id;
      hooks.secret = created.body.webhook.secret;
      shop = await servePage((path) => (path === '/own-ui' ? ownInterfacePage(s.origin, channelId) : shopPage(s.origin, channelId)), PICTURES);
      elsewhere = await servePage(() => shopPage(s.origin, channelId));
      const settings = await s.api.patch(`/v1/channels/${channelId}/settings`, { domains_whitelist: [shop.origin] });
      assert.equal(settings.status, 200, settings.text);
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 900, height: 760 } });
    });
    after(async () => {
      await browser?.close();
      await shop?.close();
      await elsewhere?.close();
      await s?.close();
      await hooks?.close();
    });

    const api = (content: unknown) => s.api.post('/v1/messages', { channel: { id: channelId }, contact: { id: contactId }, content });
    const launcher = () => page.getByRole('button', { name: /^Chat with Shoe shop/ });
    const log = () => page.getByRole('log', { name: 'Messages' });

    test('the script tag puts a launcher on the page; it opens the conversation window by keyboard', async () => {
      await page.goto(shop.url('/'));
      await launcher().waitFor();
      assert.equal(await launcher().getAttribute('aria-expanded'), 'false');
      await launcher().focus();
      await page.keyboard.press('Enter');
      await page.getByRole('dialog', { name: 'Shoe shop' }).waitFor();
      assert.equal(await launcher().getAttribute('aria-expanded'), 'true');
      // Focus goes to the message field, which has an accessible name.
      const input = page.getByRole('textbox', { name: 'Message' });
      await input.waitFor();
      assert.equal(await input.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement), true);
      await page.getByText('Online').waitFor();
      // Escape closes the window and gives focus back to the launcher.
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Shoe shop' }).waitFor({ state: 'hidden' });
      assert.equal(await launcher().getAttribute('aria-expanded'), 'false');
      await launcher().click();
      await input.waitFor();
    });

    test('the user sends text; the site receives a signed message_received', async () => {
      const input = page.getByRole('textbox', { name: 'Message' });
      await input.fill('Hello, do you have size 44?');
      await input.press('Enter');
      const event = await hooks.waitFor('message_received', (e) => e.data.content.payload === 'Hello, do you have size 44?');
      assert.ok(event.signatureValid, 'X-Hub-Signature matches the HMAC-SHA1 computed here');
      assert.equal(event.headers['content-type'], 'application/json');
      assert.equal(event.data.channel.id, channelId);
      contactId = event.data.contact.id;
      await log().getByText('Hello, do you have size 44?').waitFor();
      await page.getByText('Sent', { exact: true }).waitFor();
    });

    test('a reply through the API appears; its delivery and reading come back; a quick reply is tapped', async () => {
      const reply = await api({
        type: 'text',
        payload: 'We do! Which colour?',
        quick_replies: [
          { type: 'text', title: 'Black', payload: 'COLOUR_BLACK' },
          { type: 'text', title: 'White', payload: 'COLOUR_WHITE' },
        ],
      });
      assert.equal(reply.status, 201, reply.text);
      await log().getByText('We do! Which colour?').waitFor();
      const delivered = await hooks.waitFor('messages_delivered', (e) => e.data.messages[0].id === reply.body.id);
      assert.ok(delivered.signatureValid);
      // The window is open and the page visible: the widget reports the reply read.
      const read = await hooks.waitFor('messages_read', (e) => e.data.contact.id === contactId);
      assert.ok(read.signatureValid);
      assert.match(read.data.last_read_timestamp, /Z$/);

      const suggestions = page.getByRole('group', { name: 'Suggested replies' });
      await suggestions.getByRole('button', { name: 'Black' }).click();
      const tapped = await hooks.waitFor('message_received', (e) => e.data.content.quick_reply?.payload === 'COLOUR_BLACK');
      assert.ok(tapped.signatureValid);
      assert.equal(tapped.data.content.payload, 'Black');
      assert.equal(tapped.data.contact.id, contactId);
      // Quick replies go away once answered.
      await suggestions.waitFor({ state: 'hidden' });
    });

    test('cards with buttons scroll sideways; a postback button reaches the site', async () => {
      const cards = await api({
        type: 'structure',
        payload: [
          {
            title: 'Trail runner',
            text: 'Black, size 44',
            image_url: shop.url('/img/trail.png'),
            buttons: [
              { type: 'postback', title: 'Add to cart', payload: 'ADD_TRAIL_44' },
              { type: 'url', title: 'Details', payload: 'https://shop.example.com/trail' },
            ],
          },
          {
            title: 'City walker',
            text: 'Brown, size 44',
            image_url: shop.url('/img/city.png'),
            buttons: [{ type: 'postback', title: 'Add to cart', payload: 'ADD_CITY_44' }],
          },
          { title: 'Hiking boot', text: 'Brown, size 44', image_url: shop.url('/img/boot.png') },
        ],
      });
      assert.equal(cards.status, 201, cards.text);
      const list = page.getByRole('list', { name: /3 cards/ });
      await list.waitFor();
      assert.equal(await list.getByRole('listitem').count(), 3);
      const overflow = await list.evaluate((el) => el.scrollWidth > el.clientWidth);
      assert.ok(overflow, 'the cards scroll horizontally');
      // The picture for docs/widget.png (WIDGET_SCREENSHOT=docs/widget.png refreshes it).
      await page.waitForFunction(() =>
        [...(document.querySelector('[data-parley-chat]')?.shadowRoot?.querySelectorAll('img') ?? [])].every((i) => i.complete && i.naturalWidth > 0),
      );
      const shot = join(mkdtempSync(join(tmpdir(), 'parley-widget-')), 'widget.png');
      await page.screenshot({ path: shot });
      if (process.env.WIDGET_SCREENSHOT && dialect === 'sqlite') copyFileSync(shot, process.env.WIDGET_SCREENSHOT);
      const link = list.getByRole('link', { name: 'Details' });
      assert.equal(await link.getAttribute('href'), 'https://shop.example.com/trail');
      assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
      await list.getByRole('button', { name: 'Add to cart' }).nth(1).click();
      const postback = await hooks.waitFor('postback', (e) => e.data.postback.payload === 'ADD_CITY_44');
      assert.ok(postback.signatureValid);
    });

    test('typing indicator and read state from the site', async () => {
      const typing = await s.api.post('/v1/notifications', { channel: { id: channelId }, contact: { id: contactId }, type: 'typing_on' });
      assert.equal(typing.status, 200);
      const indicator = page.getByRole('status', { name: 'Shoe shop is typing' });
      await indicator.waitFor();
      await s.api.post('/v1/notifications', { channel: { id: channelId }, contact: { id: contactId }, type: 'typing_off' });
      await indicator.waitFor({ state: 'hidden' });
      assert.equal((await s.api.post('/v1/notifications', { channel: { id: channelId }, contact: { id: contactId }, type: 'messages_read' })).status, 200);
      await page.getByText('Seen', { exact: true }).waitFor();
    });

    test('the user sends a picture; the site gets an image message with the stored URL', async () => {
      const picker = page.locator('input[type=file]');
      await picker.setInputFiles({ name: 'shoe.png', mimeType: 'image/png', buffer: PNG });
      const event = await hooks.waitFor('message_received', (e) => e.data.content.type === 'image');
      assert.ok(event.signatureValid);
      const url: string = event.data.content.payload.url;
      assert.match(url, new RegExp(`^${s.baseUrl}/files/[A-Za-z0-9]{32}/shoe\\.png$`));
      const file = await fetch(url);
      assert.equal(file.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await file.arrayBuffer()), PNG);
      await log().locator(`img[src="${url}"]`).waitFor();
      // And an image from the site shows too.
      const image = await api({ type: 'image', payload: { url } });
      assert.equal(image.status, 201);
      await log().locator(`li[data-message-id="${image.body.id}"] img`).waitFor();
    });

    test('a reload continues the stored session: history is back, new messages go to the same contact', async () => {
      const reply = await api({ type: 'text', payload: 'Anything else I can help with?' });
      assert.equal(reply.status, 201);
      await page.reload();
      // With a stored session the widget connects while closed: what arrives is counted on the launcher.
      await page.getByText('Online').waitFor({ state: 'attached' });
      const whileClosed = await api({
        type: 'text',
        payload: 'Your order has shipped.',
        quick_replies: [
          { type: 'text', title: 'No, thanks', payload: 'DONE' },
          { type: 'text', title: 'Delivery times', payload: 'DELIVERY' },
        ],
      });
      assert.equal(whileClosed.status, 201);
      await page.getByRole('button', { name: 'Chat with Shoe shop, 1 new message' }).waitFor();
      await launcher().click();
      await log().getByText('Your order has shipped.').waitFor();
      assert.equal(await launcher().getAttribute('aria-label'), 'Chat with Shoe shop');
      await log().getByText('Hello, do you have size 44?').waitFor();
      await log().getByText('Anything else I can help with?').waitFor();
      await page.getByRole('group', { name: 'Suggested replies' }).getByRole('button', { name: 'Delivery times' }).waitFor();
      const input = page.getByRole('textbox', { name: 'Message' });
      await input.fill('All good, thanks!');
      await page.getByRole('button', { name: 'Send message' }).click();
      const event = await hooks.waitFor('message_received', (e) => e.data.content.payload === 'All good, thanks!');
      assert.equal(event.data.contact.id, contactId);
      const contacts = await s.api.get(`/v1/channels/${channelId}/contacts`);
      assert.equal(contacts.body.length, 1);
    });

    test('a page on an origin that is not listed is refused', async () => {
      const other = await browser.newPage();
      const refusedEvents = hooks.events.length;
      await other.goto(elsewhere.url('/'));
      await other.getByRole('button', { name: /^Chat with Shoe shop/ }).click();
      await other.getByRole('alert').getByText('This chat is not available on this website.').waitFor();
      assert.equal(await other.getByRole('button', { name: 'Send message' }).isDisabled(), true);
      await other.close();
      const contacts = await s.api.get(`/v1/channels/${channelId}/contacts`);
      assert.equal(contacts.body.length, 1, 'no contact was made for the refused page');
      assert.equal(hooks.events.length, refusedEvents);
    });

    test('the client library as a module: a page with its own interface connects, sends and receives', async () => {
      const own = await browser.newPage();
      await own.goto(shop.url('/own-ui'));
      await own.waitForFunction(() => (window as unknown as { chatState?: string }).chatState === 'online');
      const sent = await hooks.waitFor('message_received', (e) => e.data.content.payload === 'Sent by my own interface');
      assert.ok(sent.signatureValid);
      const ownContact = sent.data.contact.id;
      assert.notEqual(ownContact, contactId, 'another browser profile is another visitor');
      const reply = await s.api.post('/v1/messages', {
        channel: { id: channelId },
        contact: { id: ownContact },
        content: { type: 'text', payload: 'Hello, custom interface' },
      });
      assert.equal(reply.status, 201);
      await own.getByText('Hello, custom interface').waitFor();
      const failure = await own.evaluate(() => (window as unknown as { chatError?: unknown }).chatError);
      assert.deepEqual(failure, { code: 422, field: 'content.type' });
      await own.close();
    });

    test('widget.js is served without a token, cacheable, and the client library as a module', async () => {
      const res = await fetch(`${s.origin}/widget.js`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/javascript/);
      const etag = res.headers.get('etag');
      assert.ok(etag);
      assert.equal((await fetch(`${s.origin}/widget.js`, { headers: { 'if-none-match': etag } })).status, 304);
      const lib = await fetch(`${s.origin}/chat-client.js`);
      assert.equal(lib.status, 200);
      assert.match(await lib.text(), /export\s*\{/);
    });
  });
}
