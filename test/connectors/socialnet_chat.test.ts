import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { dialects } from '../helpers/databases.js';
import { eventually, expectQuiet } from '../helpers/waits.js';
import type { WebhookReceiver } from '../helpers/webhooks.js';
import { APP_ID, APP_SECRET, http, startHarness, VERIFY_TOKEN, type Harness } from './helpers/harness.js';

const VERSION = 'v25.0';

interface Page {
  pageId: string;
  channelId: string;
  hook: WebhookReceiver;
  body: any;
}

for (const { dialect, skip, test } of await dialects({
  postgresSmoke: [
    'message_received: text, quick-reply payload',
    'sending every content type the platform takes',
    'a failed profile read is not taken as done',
    'a page whose token the platform refuses',
  ],
})) {
  describe(`socialnet_chat connector over real HTTP (${dialect})`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(dialect);
    });
    after(async () => h?.close());

    async function newUser(page: Page, extra: Record<string, unknown> = {}): Promise<string> {
      const res = await h.snSandbox(`/pages/${page.pageId}/users`, { first_name: 'Jana', last_name: 'Nováková', gender: 'female', timezone: 2, ...extra });
      assert.equal(res.status, 201, res.text);
      return res.body.user.psid;
    }

    /** The user writes; answers the contact id the service reported. */
    async function userSays(page: Page, psid: string, text: string): Promise<{ contactId: string; answer: any }> {
      const answer = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/messages`, { text });
      assert.equal(answer.body.webhook?.status, 200, answer.text);
      const event = await page.hook.waitFor('message_received', (e) => e.data.content.payload === text);
      return { contactId: event.data.contact.id, answer: answer.body };
    }

    function send(page: Page, contact: Record<string, unknown>, content: Record<string, unknown>, metadata?: Record<string, unknown>) {
      return h.s.api.post('/v1/messages', { channel: { id: page.channelId }, contact, content, ...(metadata ? { metadata } : {}) });
    }

    async function platformMessages(page: Page, query = ''): Promise<any[]> {
      return (await h.snSandbox(`/pages/${page.pageId}/messages${query}`)).body.messages;
    }

    test('connecting a page: the short-lived user token is exchanged, name and category read, page and app subscribed', async () => {
      const page = await h.connectPage('Bakery');
      const stored = page.body.socialnet_page;
      assert.equal(stored.id, page.pageId);
      assert.equal(stored.name, 'Bakery');
      assert.equal(stored.category, 'Restaurant');
      // The stored token is the page's own token, long-lived (never expires).
      const debug = await http(
        'GET',
        `${h.snBase}/${VERSION}/debug_token?input_token=${encodeURIComponent(stored.access_token)}&access_token=${APP_ID}|${APP_SECRET}`,
      );
      assert.equal(debug.body.data.type, 'PAGE');
      assert.equal(debug.body.data.expires_at, 0);
      assert.equal(debug.body.data.is_valid, true);
      assert.deepEqual((await h.s.api.get(`/v1/channels/${page.channelId}`)).body.socialnet_page, stored);
      // The page subscribed the app to the messaging fields; the app's callback is the service.
      const platformPage = await h.snSandbox(`/pages/${page.pageId}`);
      for (const field of ['messages', 'messaging_postbacks', 'messaging_optins', 'message_deliveries', 'message_reads', 'message_echoes']) {
        assert.ok(JSON.stringify(platformPage.body).includes(field), field);
      }
      const app = await h.snSandbox('/app');
      assert.equal(app.body.subscription.callbackUrl, `${h.s.baseUrl}/inbound/socialnet_chat`);
      assert.equal(app.body.subscription.verifyToken, VERIFY_TOKEN);
    });

    test('connecting refuses bad tokens (422 naming the field) and reports a platform that is down (502)', async () => {
      const made = await h.snSandbox('/pages', { name: 'Other', category: 'Shop' });
      const body = (token: string, id = made.body.page.id) => ({ type: 'socialnet_chat', name: 'x', socialnet_page: { id, access_token: token } });
      const bad = await h.s.api.post('/v1/channels', body('not-a-token'));
      assert.equal(bad.status, 422, bad.text);
      assert.equal(bad.body.errors[0].field, 'socialnet_page.access_token');
      const foreign = await h.snSandbox('/pages', { name: 'Foreign' });
      const notManaged = await h.s.api.post('/v1/channels', body(made.body.admin.user_access_token, foreign.body.page.id));
      assert.equal(notManaged.status, 422, notManaged.text);
      assert.equal(notManaged.body.errors[0].field, 'socialnet_page.id');
      // A page token of another page.
      const wrongPage = await h.s.api.post('/v1/channels', body(foreign.body.access_token));
      assert.equal(wrongPage.status, 422);
      assert.equal(wrongPage.body.errors[0].field, 'socialnet_page.id');
      // A long-lived page token is taken as it is.
      const pageToken = await h.s.api.post('/v1/channels', body(made.body.access_token));
      assert.equal(pageToken.status, 201, pageToken.text);
      assert.equal(pageToken.body.socialnet_page.access_token, made.body.access_token);

      await h.snSandbox('/faults', { kind: 'server_error', endpoint: 'debug_token', status: 503 });
      const down = await h.s.api.post('/v1/channels', body(made.body.admin.user_access_token));
      assert.equal(down.status, 502, down.text);
      await h.snSandbox('/faults', { kind: 'timeout', endpoint: 'node', delay_ms: 4000 });
      const slow = await h.s.api.post('/v1/channels', body(made.body.admin.user_access_token));
      assert.equal(slow.status, 502, slow.text);
      assert.match(slow.body.errors[0].message, /did not answer within 1500 ms/);
      await http('DELETE', `${h.snBase}/_sandbox/faults`);
      const count = (await h.s.api.get('/v1/channels?max=100')).body.filter((c: any) => c.socialnet_page?.id === made.body.page.id).length;
      assert.equal(count, 1, 'only the accepted channel was saved');
    });

    test('connecting a page of an admin with more than 25 pages: the page list is read page by page', async () => {
      const first = await h.snSandbox('/pages', { name: 'Chain HQ', category: 'Restaurant' });
      const admin = first.body.admin;
      let last = first;
      for (let i = 0; i < 29; i++) {
        last = await h.snSandbox('/pages', { name: `Branch ${i}`, category: 'Restaurant', admin_id: admin.id });
        assert.equal(last.status, 201, last.text);
      }
      const res = await h.s.api.post('/v1/channels', {
        type: 'socialnet_chat',
        name: 'Branch 28',
        socialnet_page: { id: last.body.page.id, access_token: admin.user_access_token },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.socialnet_page.name, 'Branch 28');
      const listed = ((await h.snSandbox('/requests?path_contains=/accounts')).body.requests as any[]).filter((r) => r.method === 'GET');
      assert.ok(listed.length >= 2, 'the second page of the list was asked for');
      assert.ok(listed.some((r) => typeof r.query.after === 'string'));
    });

    test('the page and the app subscribe to referrals and standby: a short link re-entry is an opt_in, a message on standby is received', async () => {
      const page = await h.connectPage();
      const platformPage = await h.snSandbox(`/pages/${page.pageId}`);
      for (const field of ['messaging_referrals', 'standby']) {
        assert.ok(platformPage.body.page.subscribed_fields.includes(field), field);
        assert.ok((await h.snSandbox('/app')).body.subscription.fields.includes(field), field);
      }
      const psid = await newUser(page);
      const { contactId } = await userSays(page, psid, 'hello');
      const referral = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/referral`, { ref: 'summer-promo' });
      assert.equal(referral.body.webhook?.status, 200, referral.text);
      const optIn = await page.hook.waitFor('opt_in', (e) => e.data.opt_in.type === 'referral');
      assert.deepEqual(optIn.data.opt_in, { type: 'referral', payload: 'summer-promo' });
      assert.equal(optIn.data.contact.id, contactId);
      const standby = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/standby`, { text: 'is a human there?' });
      assert.equal(standby.body.webhook?.status, 200, standby.text);
      const received = await page.hook.waitFor('message_received', (e) => e.data.content.payload === 'is a human there?');
      assert.equal(received.data.contact.id, contactId);
    });

    test('a page whose token the platform refuses (190) is marked disconnected and announced; a new token connects it again', async () => {
      const page = await h.connectPage('Corner Bakery');
      const psid = await newUser(page);
      const { contactId } = await userSays(page, psid, 'hello');
      assert.equal(page.body.socialnet_page.page_state, undefined, 'a connected page shows the specification fields only');
      await h.snSandbox(`/pages/${page.pageId}/disconnect`, { reason: 'password_changed' });
      const refused = await send(page, { id: contactId }, { type: 'text', payload: 'anyone?' });
      assert.equal(refused.status, 502, refused.text);
      const changed = await page.hook.waitFor('channel_state_changed');
      assert.equal(changed.data.page_state, 'disconnected');
      assert.equal(changed.data.channel.id, page.channelId);
      assert.match(changed.data.reason, /page is disconnected/);
      const shown = await eventually(async () => {
        const got = await h.s.api.get(`/v1/channels/${page.channelId}`);
        return got.body.socialnet_page.page_state === 'disconnected' ? got.body.socialnet_page : undefined;
      });
      assert.match(shown.page_state_reason, /page is disconnected/);
      // The admin connects the page again on the platform and gives the channel a new token.
      const again = await h.snSandbox(`/pages/${page.pageId}/reconnect`, {});
      assert.equal(again.status, 200, again.text);
      const updated = await h.s.api.patch(`/v1/channels/${page.channelId}`, { socialnet_page: { access_token: again.body.access_token } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.socialnet_page.page_state, undefined);
      assert.equal((await send(page, { id: contactId }, { type: 'text', payload: 'back' })).status, 201);
    });

    test('message_received: text, quick-reply payload, location and re-hosted attachments', async () => {
      const page = await h.connectPage();
      const psid = await newUser(page);
      const { contactId } = await userSays(page, psid, 'Dobrý den 👋 / ahoj');
      const first = page.hook.events.find((e) => e.event === 'message_received')!;
      assert.ok(first.signatureValid, 'the event is signed with the channel webhook secret');
      assert.equal(first.data.direction, 'received');
      assert.deepEqual(first.data.channel, { id: page.channelId, type: 'socialnet_chat', name: 'Coffee Shop channel' });
      assert.deepEqual(first.data.content, { type: 'text', payload: 'Dobrý den 👋 / ahoj' });

      await h.snSandbox(`/pages/${page.pageId}/users/${psid}/quick_reply`, { payload: 'SIZE_L', title: 'Large' });
      const qr = await page.hook.waitFor('message_received', (e) => e.data.content.payload === 'Large');
      assert.deepEqual(qr.data.content, { type: 'text', payload: 'Large', quick_reply: { payload: 'SIZE_L' } });
      assert.equal(qr.data.contact.id, contactId);

      await h.snSandbox(`/pages/${page.pageId}/users/${psid}/location`, { lat: 50.08, long: 14.42 });
      const loc = await page.hook.waitFor('message_received', (e) => e.data.content.type === 'location');
      assert.deepEqual(loc.data.content, { type: 'location', payload: { latitude: 50.08, longitude: 14.42 } });

      const bytes = Buffer.from('%PDF-1.4 the contract');
      await h.snSandbox(`/pages/${page.pageId}/users/${psid}/attachments`, {
        type: 'file',
        file_name: 'contract.pdf',
        content_type: 'application/pdf',
        content_base64: bytes.toString('base64'),
      });
      const file = await page.hook.waitFor('message_received', (e) => e.data.content.type === 'file');
      const url: string = file.data.content.payload.url;
      assert.ok(url.startsWith(`${h.s.baseUrl}/files/`), url);
      assert.ok(url.endsWith('/contract.pdf'), url);
      const got = await fetch(url);
      assert.equal(got.status, 200);
      assert.equal(got.headers.get('content-type'), 'application/pdf');
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), bytes);

      await h.snSandbox(`/pages/${page.pageId}/users/${psid}/attachments`, { type: 'image' });
      const image = await page.hook.waitFor('message_received', (e) => e.data.content.type === 'image');
      assert.ok(image.data.content.payload.url.startsWith(`${h.s.baseUrl}/files/`));
      assert.equal((await fetch(image.data.content.payload.url)).headers.get('content-type'), 'image/png');

      const listed = await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}/messages?max=100`);
      assert.equal(listed.headers.get('x-total-count'), '5');
      assert.ok(listed.body.every((m: any) => m.direction === 'received'));
    });

    test('a bad or missing signature is refused and nothing is stored; a repeated delivery makes one message', async () => {
      const page = await h.connectPage();
      const envelope = JSON.stringify({
        object: 'page',
        entry: [
          {
            id: page.pageId,
            time: Date.now(),
            messaging: [{ sender: { id: '4242424242' }, recipient: { id: page.pageId }, timestamp: Date.now(), message: { mid: 'm_forged', text: 'forged' } }],
          },
        ],
      });
      const inbound = `${h.s.baseUrl}/inbound/socialnet_chat`;
      const sign = (body: string, secret = APP_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const contacts = async () => (await h.s.api.get(`/v1/channels/${page.channelId}/contacts`)).headers.get('x-total-count');

      const missing = await http('POST', inbound, envelope);
      assert.equal(missing.status, 403, missing.text);
      assert.equal(missing.body.status.code, '403');
      assert.equal((await http('POST', inbound, envelope, { 'x-hub-signature-256': sign(envelope, 'wrong-secret') })).status, 403);
      assert.equal((await http('POST', inbound, envelope, { 'x-hub-signature-256': sign(`${envelope} `) })).status, 403);
      assert.equal((await http('POST', inbound, envelope, { 'x-hub-signature-256': 'sha256=' })).status, 403);
      assert.equal(
        (await http('POST', inbound, envelope, { 'x-hub-signature': `sha1=${createHmac('sha1', 'nope').update(envelope).digest('hex')}` })).status,
        403,
      );
      assert.equal(await contacts(), '0');
      // The same bytes, signed with the app secret, are taken (also with the legacy sha1 header).
      const good = await http('POST', inbound, envelope, { 'x-hub-signature-256': sign(envelope) });
      assert.equal(good.status, 200, good.text);
      assert.equal(await contacts(), '1');
      const legacy = await http('POST', inbound, envelope, { 'x-hub-signature': `sha1=${createHmac('sha1', APP_SECRET).update(envelope).digest('hex')}` });
      assert.equal(legacy.status, 200);

      // The platform signing with another secret: refused, nothing stored.
      const psid = await newUser(page);
      await http('PATCH', `${h.snBase}/_sandbox/app`, { secret: 'rotated-secret' });
      const refused = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/messages`, { text: 'lost' });
      await http('PATCH', `${h.snBase}/_sandbox/app`, { secret: APP_SECRET });
      assert.equal(refused.body.webhook.status, 403);
      assert.equal(await contacts(), '1');

      // Redelivery of the same call: one message, one message_received.
      const { contactId, answer } = await userSays(page, psid, 'only once');
      const again = await h.snSandbox(`/webhooks/${answer.webhook.delivery_id}/redeliver`, {});
      assert.equal(again.body.webhook.status, 200);
      const thrice = await h.snSandbox(`/webhooks/${answer.webhook.delivery_id}/redeliver`, {});
      assert.equal(thrice.body.webhook.status, 200);
      const listed = await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}/messages`);
      assert.equal(listed.headers.get('x-total-count'), '1');
      await expectQuiet(300, 'a redelivered platform event is reported once');
      assert.equal(page.hook.events.filter((e) => e.event === 'message_received' && e.data.content.payload === 'only once').length, 1);
    });

    test('the subscription handshake answers the challenge only with the verify token', async () => {
      const url = `${h.s.baseUrl}/inbound/socialnet_chat?hub.mode=subscribe&hub.challenge=1158201444`;
      const ok = await http('GET', `${url}&hub.verify_token=${VERIFY_TOKEN}`);
      assert.equal(ok.status, 200);
      assert.equal(ok.text, '1158201444');
      assert.equal((await http('GET', `${url}&hub.verify_token=guess`)).status, 403);
      // The token is compared exactly: another case is another token.
      assert.notEqual(VERIFY_TOKEN, VERIFY_TOKEN.toLowerCase());
      assert.equal((await http('GET', `${url}&hub.verify_token=${VERIFY_TOKEN.toLowerCase()}`)).status, 403);
      assert.equal((await http('GET', `${url}&hub.verify_token=${VERIFY_TOKEN.toUpperCase()}`)).status, 403);
      assert.equal((await http('GET', `${h.s.baseUrl}/inbound/botmsg?hub.mode=subscribe`)).status, 404);
    });

    test('sending every content type the platform takes, with quick replies and platform metadata', async () => {
      const page = await h.connectPage();
      const psid = await newUser(page);
      const { contactId } = await userSays(page, psid, 'show me');
      const contact = { id: contactId };
      const card = {
        title: 'Latte',
        text: 'With oat milk',
        image_url: h.media.url('photo.png'),
        item_url: 'https://example.com/latte',
        buttons: [
          { type: 'postback', title: 'Order', payload: 'ORDER_LATTE' },
          { type: 'url', title: 'Menu', payload: 'https://example.com/menu' },
          { type: 'phone', title: 'Call', payload: '+420601123456' },
        ],
      };
      const receipt = {
        recipient_name: 'Jana Nováková',
        order_number: 'A-1',
        currency: 'EUR',
        payment_method: 'Visa 1234',
        timestamp: '2026-01-02T03:04:05.000Z',
        summary: { subtotal: 7, total_cost: 8.5 },
        elements: [{ title: 'Latte', price: 3.5, quantity: 2 }],
      };
      const contents: Array<[Record<string, unknown>, (m: any) => void]> = [
        [
          {
            type: 'text',
            payload: 'Hello 👋',
            quick_replies: [{ type: 'text', title: 'Yes', payload: 'Y', image_url: h.media.url('photo.png') }, { type: 'email' }, { type: 'phone_number' }],
          },
          (m) => {
            assert.equal(m.text, 'Hello 👋');
            assert.deepEqual(m.quick_replies, [
              { content_type: 'text', title: 'Yes', payload: 'Y', image_url: h.media.url('photo.png') },
              { content_type: 'user_email' },
              { content_type: 'user_phone_number' },
            ]);
          },
        ],
        [
          { type: 'image', payload: { url: h.media.url('photo.png') } },
          (m) => assert.deepEqual(m.attachment, { type: 'image', payload: { url: h.media.url('photo.png'), is_reusable: true } }),
        ],
        [{ type: 'video', payload: { url: h.media.url('clip.mp4') } }, (m) => assert.equal(m.attachment.type, 'video')],
        [{ type: 'audio', payload: { url: h.media.url('song.mp3') } }, (m) => assert.equal(m.attachment.type, 'audio')],
        [{ type: 'file', payload: { url: h.media.url('terms.pdf') } }, (m) => assert.equal(m.attachment.type, 'file')],
        [
          { type: 'structure', payload: card },
          (m) => {
            assert.equal(m.attachment.payload.template_type, 'generic');
            assert.deepEqual(m.attachment.payload.elements[0], {
              title: 'Latte',
              subtitle: 'With oat milk',
              image_url: h.media.url('photo.png'),
              default_action: { type: 'web_url', url: 'https://example.com/latte' },
              buttons: [
                { type: 'postback', title: 'Order', payload: 'ORDER_LATTE' },
                { type: 'web_url', url: 'https://example.com/menu', title: 'Menu' },
                { type: 'phone_number', title: 'Call', payload: '+420601123456' },
              ],
            });
          },
        ],
        [
          { type: 'structure', payload: { text: 'Pick one', buttons: [{ type: 'postback', title: 'A', payload: 'PICK_A' }] } },
          (m) =>
            assert.deepEqual(m.attachment.payload, {
              template_type: 'button',
              text: 'Pick one',
              buttons: [{ type: 'postback', title: 'A', payload: 'PICK_A' }],
            }),
        ],
        [
          { type: 'structure', payload: [{ title: 'One' }, { title: 'Two', text: 'second' }] },
          (m) => assert.deepEqual(m.attachment.payload, { template_type: 'generic', elements: [{ title: 'One' }, { title: 'Two', subtitle: 'second' }] }),
        ],
        [
          { type: 'receipt', payload: receipt },
          (m) => {
            assert.equal(m.attachment.payload.template_type, 'receipt');
            assert.equal(m.attachment.payload.timestamp, String(Date.parse(receipt.timestamp) / 1000));
            assert.deepEqual(m.attachment.payload.elements, receipt.elements);
          },
        ],
      ];
      for (const [content, check] of contents) {
        const res = await send(page, contact, content, { platform_metadata: 'corr-7', order: 42 });
        assert.equal(res.status, 201, `${String(content.type)}: ${res.text}`);
        const echo = await page.hook.waitFor('message_echo', (e) => e.data.id === res.body.id);
        assert.deepEqual(echo.data.metadata, { platform_metadata: 'corr-7', order: 42 });
        const sent = (await platformMessages(page, `?psid=${psid}`)).at(-1);
        assert.equal(sent.messaging_type, 'RESPONSE', 'a reply inside the 24-hour window');
        assert.equal(sent.message.metadata, 'corr-7');
        check(sent.message);
      }
      // The platform's own echoes of these sends are not reported again.
      await h.sn.settle();
      await expectQuiet(300, "the platform's echoes of our own sends are not reported again");
      const listed = await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}/messages?max=100`);
      assert.equal(listed.headers.get('x-total-count'), String(contents.length + 1));
      assert.equal(page.hook.events.filter((e) => e.event === 'message_echo').length, contents.length);

      const loc = await send(page, contact, { type: 'location', payload: { latitude: 1, longitude: 2 } });
      assert.equal(loc.status, 422);
      assert.equal(loc.body.errors[0].field, 'content.type');
      const locQr = await send(page, contact, { type: 'text', payload: 'where?', quick_replies: [{ type: 'location' }] });
      assert.equal(locQr.status, 422);
      assert.equal(locQr.body.errors[0].field, 'content.quick_replies[0].type');
    });

    test('metadata: tag and type are passed as the platform expects; the window and the 24+1 policy choose the type', async () => {
      const page = await h.connectPage();
      const psid = await newUser(page);
      const { contactId } = await userSays(page, psid, 'hi there');
      const contact = { id: contactId };
      const last = async () => (await platformMessages(page, `?psid=${psid}`)).at(-1);

      assert.equal((await send(page, contact, { type: 'text', payload: 'a' }, { type: 'update' })).status, 201);
      assert.equal((await last()).messaging_type, 'UPDATE');
      assert.equal((await send(page, contact, { type: 'text', payload: 'b' }, { tag: 'CONFIRMED_EVENT_UPDATE' })).status, 201);
      assert.deepEqual([(await last()).messaging_type, (await last()).tag], ['MESSAGE_TAG', 'CONFIRMED_EVENT_UPDATE']);
      // A retired tag goes out as its current successor.
      assert.equal((await send(page, contact, { type: 'text', payload: 'c' }, { tag: 'shipping_update' })).status, 201);
      assert.equal((await last()).tag, 'POST_PURCHASE_UPDATE');
      // A retired tag without a successor: the platform refuses, 502 with its reason.
      const refused = await send(page, contact, { type: 'text', payload: 'd' }, { tag: 'game_event' });
      assert.equal(refused.status, 502, refused.text);
      assert.match(refused.body.errors[0].message, /tag/);

      // 25 hours later: the window closed; the first message goes out as a response (24+1) and
      // this platform, which enforces the window, refuses it.
      h.clock.advance(25 * 60 * 60 * 1000);
      const plusOne = await send(page, contact, { type: 'text', payload: 'still there?' });
      assert.equal(plusOne.status, 502);
      assert.match(plusOne.body.errors[0].message, /outside of allowed window/);
      assert.match(plusOne.body.errors[0].message, /metadata\.tag \(human_agent up to 7 days/, 'the reason says what to do');
      assert.equal((await last()).message.text, 'c', 'nothing more reached the user');
      const requests = (await h.snSandbox(`/requests?path_contains=/messages`)).body.requests as any[];
      assert.equal(requests.at(-1).body.messaging_type, 'RESPONSE');
      // A tag the platform allows outside the window (a human agent within 7 days) goes through ...
      assert.equal((await send(page, contact, { type: 'text', payload: 'agent here' }, { tag: 'human_agent' })).status, 201);
      // ... and after a message was sent past the window the next one is an update.
      const update = await send(page, contact, { type: 'text', payload: 'news' });
      assert.equal(update.status, 502);
      const after = (await h.snSandbox(`/requests?path_contains=/messages`)).body.requests as any[];
      assert.equal(after.at(-1).body.messaging_type, 'UPDATE');
      // The user writes again: replies are responses again.
      await userSays(page, psid, 'back');
      assert.equal((await send(page, contact, { type: 'text', payload: 'welcome back' })).status, 201);
      assert.equal((await last()).messaging_type, 'RESPONSE');
      h.clock.offset = 0;
    });

    test('sending by phone number: tag before the opt-in, opt_in of type phone_number, then ordinary sends followed by messages_delivered', async () => {
      const page = await h.connectPage();
      const first = await send(
        page,
        { phone_number: '+420 601 555 111', first_name: 'Petr', last_name: 'Novák' },
        { type: 'text', payload: 'Your order shipped' },
      );
      assert.equal(first.status, 201, first.text);
      assert.equal(first.body.contact.phone_number, '+420601555111');
      const contactId = first.body.contact.id;
      const [request] = await platformMessages(page, '?phone_number=%2B420601555111');
      assert.deepEqual(request.recipient, { phone_number: '+420601555111' });
      assert.equal(request.messaging_type, 'MESSAGE_TAG');
      assert.equal(request.tag, 'ACCOUNT_UPDATE', 'non_promotional_subscription goes out as its current successor');
      const requests = (await h.snSandbox(`/requests?path_contains=/messages`)).body.requests as any[];
      assert.deepEqual(requests.at(-1).body.recipient, { phone_number: '+420601555111', name: { first_name: 'Petr', last_name: 'Novák' } });
      const got = await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}`);
      assert.equal(got.body.phone_number, '+420601555111');
      assert.equal(got.body.name, 'Petr Novák');

      // The user accepts the message request.
      const accepted = await h.snSandbox(`/pages/${page.pageId}/optins`, { type: 'phone_number', phone_number: '+420601555111' });
      assert.equal(accepted.body.webhook.status, 200, accepted.text);
      const optIn = await page.hook.waitFor('opt_in');
      assert.deepEqual(optIn.data.opt_in, { type: 'phone_number' });
      assert.deepEqual(optIn.data.contact, { id: contactId, phone_number: '+420601555111' });
      assert.ok(optIn.signatureValid);

      // Later sends by number reach the user by id, without the tag.
      const second = await send(page, { phone_number: '+420601555111' }, { type: 'text', payload: 'Thanks for accepting' });
      assert.equal(second.status, 201);
      assert.equal(second.body.contact.id, contactId);
      const psid = accepted.body.user.psid;
      const byId = await platformMessages(page, `?psid=${psid}`);
      assert.deepEqual(byId.at(-1).recipient, { id: psid });
      assert.equal(byId.at(-1).tag, null);
      const delivered = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/deliver`, {});
      assert.equal(delivered.body.webhook.status, 200);
      const event = await page.hook.waitFor('messages_delivered');
      assert.deepEqual(event.data.messages.map((m: any) => m.id).sort(), [first.body.id, second.body.id].sort());
      assert.equal(event.data.contact.id, contactId);
    });

    test('opt_in: checkbox (user_ref addressing) and send_to_socialnet', async () => {
      const page = await h.connectPage();
      const box = await h.snSandbox(`/pages/${page.pageId}/optins`, { type: 'checkbox', user_ref: 'ref-cart-77', ref: 'cart' });
      assert.equal(box.body.webhook.status, 200, box.text);
      const checkbox = await page.hook.waitFor('opt_in', (e) => e.data.opt_in.type === 'checkbox');
      assert.deepEqual(checkbox.data.opt_in, { type: 'checkbox', payload: 'cart' });
      assert.equal(checkbox.data.contact.user_ref, 'ref-cart-77');
      const sent = await send(page, { user_ref: 'ref-cart-77' }, { type: 'text', payload: 'Your cart is waiting' });
      assert.equal(sent.status, 201, sent.text);
      assert.deepEqual(sent.body.contact, { id: checkbox.data.contact.id, user_ref: 'ref-cart-77' });
      const [platform] = await platformMessages(page, '?user_ref=ref-cart-77');
      assert.deepEqual(platform.recipient, { user_ref: 'ref-cart-77' });
      assert.equal((await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${checkbox.data.contact.id}`)).body.user_ref, 'ref-cart-77');

      const psid = await newUser(page);
      await h.snSandbox(`/pages/${page.pageId}/optins`, { type: 'send_to_socialnet', psid, ref: 'landing-page' });
      const plugin = await page.hook.waitFor('opt_in', (e) => e.data.opt_in.type === 'send_to_socialnet');
      assert.deepEqual(plugin.data.opt_in, { type: 'send_to_socialnet', payload: 'landing-page' });
      assert.notEqual(plugin.data.contact.id, checkbox.data.contact.id);
    });

    test('messages_delivered and messages_read follow the platform watermarks; delivered_timestamp is the platform time', async () => {
      const page = await h.connectPage();
      const psid = await newUser(page);
      const { contactId } = await userSays(page, psid, 'ping');
      const a = await send(page, { id: contactId }, { type: 'text', payload: 'one' });
      const b = await send(page, { id: contactId }, { type: 'text', payload: 'two' });
      const delivered = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/deliver`, {});
      const platformTime = delivered.body.event.timestamp as number;
      const event = await page.hook.waitFor('messages_delivered');
      assert.deepEqual(
        event.data.messages.map((m: any) => m.id),
        [a.body.id, b.body.id],
      );
      assert.equal(event.data.delivered_timestamp, new Date(platformTime).toISOString());
      assert.deepEqual(event.data.channel, { id: page.channelId, type: 'socialnet_chat', name: 'Coffee Shop channel' });
      // A second receipt for the same messages reports nothing new.
      await h.snSandbox(`/pages/${page.pageId}/users/${psid}/deliver`, {});
      const c = await send(page, { id: contactId }, { type: 'text', payload: 'three' });
      const read = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/read`, {});
      const watermark = read.body.watermark as number;
      const readEvent = await page.hook.waitFor('messages_read');
      assert.equal(readEvent.data.last_read_timestamp, new Date(watermark).toISOString());
      // The third message was read before its delivery was reported: it is reported delivered too.
      const third = await page.hook.waitFor('messages_delivered', (e) => e.data.messages.some((m: any) => m.id === c.body.id));
      assert.deepEqual(third.data.messages, [{ id: c.body.id }]);
      assert.equal(page.hook.events.filter((e) => e.event === 'messages_delivered').length, 2);
      const listed = (await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}/messages`)).body;
      for (const m of listed.filter((x: any) => x.direction === 'sent')) {
        assert.ok(m.delivered, `${m.id} delivered`);
        assert.ok(m.read, `${m.id} read`);
      }
    });

    test('message_echo for a message a page admin sent from the inbox; postback from buttons and Get Started', async () => {
      const page = await h.connectPage();
      const psid = await newUser(page);
      const { contactId } = await userSays(page, psid, 'question');
      await h.snSandbox(`/pages/${page.pageId}/inbox_messages`, { psid, text: 'An admin answers by hand' });
      const echo = await page.hook.waitFor('message_echo', (e) => e.data.content.payload === 'An admin answers by hand');
      assert.equal(echo.data.direction, 'sent');
      assert.equal(echo.data.contact.id, contactId);
      const listed = await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}/messages`);
      assert.equal(listed.body[0].content.payload, 'An admin answers by hand');

      const card = await send(
        page,
        { id: contactId },
        { type: 'structure', payload: { title: 'Coffee?', buttons: [{ type: 'postback', title: 'Yes please', payload: 'COFFEE_YES' }] } },
      );
      const mid = (await platformMessages(page, `?psid=${psid}`)).at(-1).mid;
      assert.equal(card.status, 201);
      await h.snSandbox(`/pages/${page.pageId}/users/${psid}/postback`, { message_id: mid, button_index: 0 });
      const postback = await page.hook.waitFor('postback');
      assert.deepEqual(postback.data.postback, { payload: 'COFFEE_YES' });
      assert.equal(postback.data.contact.id, contactId);

      const settings = await h.s.api.patch(`/v1/channels/${page.channelId}/settings`, { get_started_button: { payload: 'GET_STARTED' } });
      assert.equal(settings.status, 200, settings.text);
      const newcomer = await newUser(page, { first_name: 'Eva' });
      await h.snSandbox(`/pages/${page.pageId}/users/${newcomer}/get_started`, {});
      const started = await page.hook.waitFor('postback', (e) => e.data.postback.payload === 'GET_STARTED');
      assert.notEqual(started.data.contact.id, contactId, 'a new user becomes a new contact');
    });

    test('Get Contact reads the profile once and re-hosts the picture; an app without review gets name and picture, a reviewed one gender and time zone', async () => {
      const page = await h.connectPage();
      const psid = await newUser(page, { first_name: 'Karel', last_name: 'Dvořák', gender: 'male', timezone: -5 });
      const { contactId } = await userSays(page, psid, 'hello');
      const profileCalls = async (id = psid) =>
        ((await h.snSandbox(`/requests?path_contains=${id}`)).body.requests as any[]).filter((r) => r.method === 'GET').map((r) => r.query.fields);
      // The stand-in plays an app without the platform's review of gender and time zone (the usual case).
      const got = await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.body.name, 'Karel Dvořák');
      assert.equal(got.body.gender, undefined);
      assert.equal(got.body.time_zone, undefined);
      assert.ok(got.body.photo_url.startsWith(`${h.s.baseUrl}/files/`), got.body.photo_url);
      const picture = await fetch(got.body.photo_url);
      assert.equal(picture.status, 200);
      assert.equal(picture.headers.get('content-type'), 'image/png');
      assert.deepEqual(await profileCalls(), ['first_name,last_name,profile_pic,gender,timezone', 'first_name,last_name,profile_pic']);
      const again = await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}`);
      assert.deepEqual(again.body, got.body);
      assert.equal((await profileCalls()).length, 2, 'the second Get Contact does not ask the platform');

      await http('PATCH', `${h.snBase}/_sandbox/app`, { profile_fields_reviewed: true });
      try {
        const reviewed = await newUser(page, { first_name: 'Eva', last_name: 'Malá', gender: 'female', timezone: 1 });
        const { contactId: evaId } = await userSays(page, reviewed, 'hi');
        const eva = await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${evaId}`);
        assert.deepEqual([eva.body.name, eva.body.gender, eva.body.time_zone], ['Eva Malá', 'female', '1']);
        assert.deepEqual(await profileCalls(reviewed), ['first_name,last_name,profile_pic,gender,timezone']);
      } finally {
        await http('PATCH', `${h.snBase}/_sandbox/app`, { profile_fields_reviewed: false });
      }
    });

    test('a failed profile read is not taken as done: asked again after a back-off, then the contact gets its name', async () => {
      const page = await h.connectPage();
      const psid = await newUser(page, { first_name: 'Petr', last_name: 'Novák' });
      const { contactId } = await userSays(page, psid, 'hello');
      const calls = async () => ((await h.snSandbox(`/requests?path_contains=${psid}`)).body.requests as any[]).filter((r) => r.method === 'GET').length;
      const get = () => h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}`);
      // A refusal that is not about the review (a permission the page lost for a while).
      await h.snSandbox('/faults', {
        kind: 'error',
        endpoint: 'user_profile',
        code: 200,
        subcode: 2018028,
        message: '(#200) Cannot message users who are not admins',
      });
      const refused = await get();
      assert.equal(refused.status, 200, refused.text);
      assert.equal(refused.body.name, contactId, 'no name yet');
      assert.equal(await calls(), 1);
      assert.equal((await get()).body.name, contactId);
      assert.equal(await calls(), 1, 'within the back-off the platform is not asked');
      h.clock.advance(61_000);
      try {
        const later = await get();
        assert.equal(later.body.name, 'Petr Novák');
        assert.ok(later.body.photo_url);
        assert.equal(await calls(), 3, 'asked again: the full fields, then the basic ones');
      } finally {
        h.clock.offset = 0;
      }
    });

    test('settings are validated, pushed to the platform (nested menus flattened), deleted, and the rate limit answers 502', async () => {
      const page = await h.connectPage();
      const body = {
        get_started_button: { payload: 'START' },
        menu: [
          {
            locale: 'default',
            items: [
              { type: 'postback', title: 'Help', payload: 'HELP' },
              {
                type: 'menu',
                title: 'More',
                items: [
                  { type: 'url', title: 'Site', payload: 'https://example.com' },
                  { type: 'postback', title: 'Hours', payload: 'HOURS' },
                ],
              },
            ],
          },
          { locale: 'cs_CZ', items: [{ type: 'postback', title: 'Pomoc', payload: 'HELP' }] },
        ],
        user_inputs: [
          { locale: 'default', enabled: false },
          { locale: 'cs_CZ', enabled: true },
        ],
        domains_whitelist: ['https://shop.example.com'],
      };
      const res = await h.s.api.patch(`/v1/channels/${page.channelId}/settings`, body);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, body);
      const profile = (await h.snSandbox(`/pages/${page.pageId}/profile`)).body.profile;
      assert.deepEqual(profile.get_started, { payload: 'START' });
      assert.deepEqual(profile.whitelisted_domains, ['https://shop.example.com']);
      assert.deepEqual(profile.persistent_menu, [
        {
          locale: 'default',
          composer_input_disabled: true,
          call_to_actions: [
            { type: 'postback', title: 'Help', payload: 'HELP' },
            { type: 'web_url', title: 'Site', url: 'https://example.com' },
            { type: 'postback', title: 'Hours', payload: 'HOURS' },
          ],
        },
        { locale: 'cs_CZ', composer_input_disabled: false, call_to_actions: [{ type: 'postback', title: 'Pomoc', payload: 'HELP' }] },
      ]);
      // The menu item pressed comes back as a postback.
      const psid = await newUser(page, { started: true });
      await h.snSandbox(`/pages/${page.pageId}/users/${psid}/menu`, { index: 2 });
      assert.deepEqual((await page.hook.waitFor('postback')).data.postback, { payload: 'HOURS' });

      // Rules of the specification: a menu needs get_started_button.
      const noStart = await h.s.api.patch(`/v1/channels/${page.channelId}/settings`, { get_started_button: null });
      assert.equal(noStart.status, 422);
      // Deleting settings deletes them on the platform.
      const removed = await h.s.api.patch(`/v1/channels/${page.channelId}/settings`, { user_inputs: null, menu: null, domains_whitelist: null });
      assert.equal(removed.status, 200, removed.text);
      const after = (await h.snSandbox(`/pages/${page.pageId}/profile`)).body.profile;
      assert.equal(after.persistent_menu, undefined);
      assert.equal(after.whitelisted_domains, undefined);
      assert.deepEqual(after.get_started, { payload: 'START' });

      // The platform's rate limit: 502 with the contract's message, nothing stored.
      await h.snSandbox('/faults', { kind: 'rate_limit', endpoint: 'profile', code: 613 });
      const limited = await h.s.api.patch(`/v1/channels/${page.channelId}/settings`, { domains_whitelist: ['https://a.example.com'] });
      assert.equal(limited.status, 502, limited.text);
      assert.match(limited.body.errors[0].message, /rate limit for settings was reached; it usually recovers within several minutes/);
      assert.equal((await h.s.api.get(`/v1/channels/${page.channelId}/settings`)).body.domains_whitelist, null);
      assert.equal((await h.snSandbox(`/pages/${page.pageId}/profile`)).body.profile.whitelisted_domains, undefined);
      // A platform refusal (http: is not allowed there) is 502 too.
      const refused = await h.s.api.patch(`/v1/channels/${page.channelId}/settings`, { domains_whitelist: ['http://plain.example.com'] });
      assert.equal(refused.status, 502, refused.text);
      assert.match(refused.body.errors[0].message, /whitelisted_domains/);
    });

    test('notifications: typing_on, typing_off and messages_read reach the platform as sender actions', async () => {
      const page = await h.connectPage();
      const psid = await newUser(page);
      const { contactId } = await userSays(page, psid, 'typing test');
      for (const type of ['typing_on', 'typing_off', 'messages_read']) {
        const res = await h.s.api.post('/v1/notifications', { channel: { id: page.channelId }, contact: { id: contactId }, type });
        assert.equal(res.status, 200, `${type}: ${res.text}`);
        assert.deepEqual(res.body, { channel: { id: page.channelId, type: 'socialnet_chat' }, contact: { id: contactId }, type });
      }
      const actions = (await h.snSandbox(`/pages/${page.pageId}/sender_actions?psid=${psid}`)).body.sender_actions.map((a: any) => a.action);
      assert.deepEqual(actions, ['typing_on', 'typing_off', 'mark_seen']);
      const custom = await h.s.api.post('/v1/notifications', { channel: { id: page.channelId }, contact: { id: contactId }, type: 'custom', payload: {} });
      assert.equal(custom.status, 422);
    });

    test('platform failures answer 502 with the reason: disconnected page, blocked user, rate limit, 5xx, timeout', async () => {
      const page = await h.connectPage();
      const psid = await newUser(page);
      const { contactId } = await userSays(page, psid, 'hello');
      const text = (payload: string) => send(page, { id: contactId }, { type: 'text', payload });

      await h.snSandbox('/faults', { kind: 'rate_limit', endpoint: 'messages', code: 613 });
      const limited = await text('rate');
      assert.equal(limited.status, 502);
      assert.match(limited.body.errors[0].message, /exceeded the rate limit/);
      await h.snSandbox('/faults', { kind: 'server_error', endpoint: 'messages', status: 503 });
      const down = await text('5xx');
      assert.equal(down.status, 502);
      await h.snSandbox('/faults', { kind: 'timeout', endpoint: 'messages', delay_ms: 4000 });
      const slow = await text('slow');
      assert.equal(slow.status, 502);
      assert.match(slow.body.errors[0].message, /did not answer within/);
      await http('DELETE', `${h.snBase}/_sandbox/faults`);

      await h.snSandbox(`/pages/${page.pageId}/users/${psid}/block`, {});
      const blocked = await text('blocked');
      assert.equal(blocked.status, 502);
      assert.match(blocked.body.errors[0].message, /isn't available right now/);
      await h.snSandbox(`/pages/${page.pageId}/users/${psid}/unblock`, {});

      await h.snSandbox(`/pages/${page.pageId}/disconnect`, { reason: 'password_changed' });
      const disconnected = await text('anyone?');
      assert.equal(disconnected.status, 502, disconnected.text);
      assert.match(disconnected.body.errors[0].message, /page is disconnected/);
      // Failed sends are kept as failed, never echoed.
      const listed = (await h.s.api.get(`/v1/channels/${page.channelId}/contacts/${contactId}/messages`)).body;
      assert.equal(listed.filter((m: any) => m.direction === 'sent').length, 5);
      assert.equal(page.hook.events.filter((e) => e.event === 'message_echo').length, 0);
      const notify = await h.s.api.post('/v1/notifications', { channel: { id: page.channelId }, contact: { id: contactId }, type: 'typing_on' });
      assert.equal(notify.status, 502);
    });
  });
}
