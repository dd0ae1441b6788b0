import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import type { WebhookReceiver } from '../helpers/webhooks.js';
import { http, SECRET_HEADER, startHarness, type Harness } from './helpers/harness.js';
import { expectQuiet } from '../helpers/waits.js';

interface Bot {
  botId: number;
  token: string;
  channelId: string;
  hook: WebhookReceiver;
  body: any;
}

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['received messages: text, media re-hosted', 'sending: text, media, location'] })) {
  describe(`botmsg connector over real HTTP (${dialect})`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(dialect);
    });
    after(async () => h?.close());

    async function connectBot(username = 'coffee_shop_bot'): Promise<Bot> {
      const made = await h.bmSandbox('/bots', { username, first_name: 'Coffee Shop' });
      assert.equal(made.status, 201, made.text);
      const hook = await h.receiver();
      const res = await h.s.api.post('/v1/channels', {
        type: 'botmsg',
        name: 'Bot channel',
        webhook: { url: hook.url },
        botmsg: { access_token: made.body.token },
      });
      assert.equal(res.status, 201, res.text);
      hook.secret = res.body.webhook.secret;
      return { botId: made.body.bot.id, token: made.body.token, channelId: res.body.id, hook, body: res.body };
    }

    /** A user who pressed Start: the service knows them as a contact. */
    async function startedUser(bot: Bot, extra: Record<string, unknown> = {}): Promise<{ userId: number; contactId: string }> {
      const user = await h.bmSandbox(`/bots/${bot.botId}/users`, { first_name: 'Jana', last_name: 'Nováková', username: 'jana', ...extra });
      assert.equal(user.status, 201, user.text);
      const userId = user.body.user.id as number;
      const seen = bot.hook.events.length;
      const start = await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/start`, {});
      assert.equal(start.body.webhook?.status, 200, start.text);
      const event = await bot.hook.waitFor('message_received', (e) => e.data.content.payload === '/start' && bot.hook.events.indexOf(e) >= seen);
      return { userId, contactId: event.data.contact.id };
    }

    function send(bot: Bot, contactId: string, content: Record<string, unknown>) {
      return h.s.api.post('/v1/messages', { channel: { id: bot.channelId }, contact: { id: contactId }, content });
    }

    async function sentByBot(bot: Bot, chatId: number): Promise<any[]> {
      return (await h.bmSandbox(`/bots/${bot.botId}/messages?chat_id=${chatId}`)).body.messages;
    }

    test('connecting a bot reads its name and username and registers the webhook with a secret token', async () => {
      const bot = await connectBot('latte_bot');
      assert.equal(bot.body.botmsg.name, 'Coffee Shop');
      assert.equal(bot.body.botmsg.username, 'latte_bot');
      assert.equal(bot.body.botmsg.access_token, bot.token);
      assert.deepEqual(Object.keys(bot.body.botmsg).sort(), ['access_token', 'name', 'username']);
      const webhook = (await h.bmSandbox(`/bots/${bot.botId}/webhook`)).body.webhook;
      assert.equal(webhook.url, `${h.s.baseUrl}/inbound/${bot.channelId}/updates`);
      assert.match(webhook.secretToken, /^[A-Za-z0-9_-]{32,256}$/);
      assert.deepEqual(webhook.allowedUpdates, ['message', 'callback_query', 'my_chat_member']);

      const bad = await h.s.api.post('/v1/channels', { type: 'botmsg', name: 'x', botmsg: { access_token: '123:wrong' } });
      assert.equal(bad.status, 422, bad.text);
      assert.equal(bad.body.errors[0].field, 'botmsg.access_token');
      await h.bmSandbox('/faults', { kind: 'server_error', endpoint: 'getMe', status: 502 });
      const down = await h.s.api.post('/v1/channels', { type: 'botmsg', name: 'x', botmsg: { access_token: bot.token } });
      assert.equal(down.status, 502, down.text);
      // A new token is checked again and the webhook moves with it.
      const revoked = await h.bmSandbox(`/bots/${bot.botId}/revoke_token`, {});
      const updated = await h.s.api.patch(`/v1/channels/${bot.channelId}`, { botmsg: { access_token: revoked.body.token } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.botmsg.access_token, revoked.body.token);
      assert.equal((await h.bmSandbox(`/bots/${bot.botId}/webhook`)).body.webhook.secretToken, webhook.secretToken);
    });

    test('received messages: text, media re-hosted, location, a shared contact; message_received signed', async () => {
      const bot = await connectBot();
      const { userId, contactId } = await startedUser(bot);
      const start = bot.hook.events.find((e) => e.event === 'message_received')!;
      assert.ok(start.signatureValid);
      assert.deepEqual(start.data.channel, { id: bot.channelId, type: 'botmsg', name: 'Bot channel' });
      const contact = await h.s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}`);
      assert.equal(contact.body.name, 'Jana Nováková');

      await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/messages`, { text: 'Ahoj 👋' });
      await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'Ahoj 👋');

      const pdf = Buffer.from('%PDF-1.4 menu');
      await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/media`, {
        type: 'document',
        file_name: 'menu.pdf',
        mime_type: 'application/pdf',
        content_base64: pdf.toString('base64'),
      });
      const file = await bot.hook.waitFor('message_received', (e) => e.data.content.type === 'file');
      assert.ok(file.data.content.payload.url.startsWith(`${h.s.baseUrl}/files/`));
      assert.ok(file.data.content.payload.url.endsWith('/menu.pdf'));
      assert.deepEqual(Buffer.from(await (await fetch(file.data.content.payload.url)).arrayBuffer()), pdf);

      await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/media`, { type: 'photo', caption: 'my cup' });
      const photo = await bot.hook.waitFor('message_received', (e) => e.data.content.type === 'image');
      assert.equal((await fetch(photo.data.content.payload.url)).headers.get('content-type'), 'image/png');
      await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'my cup');

      await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/location`, { latitude: 49.19, longitude: 16.6 });
      const loc = await bot.hook.waitFor('message_received', (e) => e.data.content.type === 'location');
      assert.deepEqual(loc.data.content.payload, { latitude: 49.19, longitude: 16.6 });

      await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/contact`, { phone_number: '+420601000222' });
      await bot.hook.waitFor('message_received', (e) => e.data.content.payload === '+420601000222');
      const listed = await h.s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}/messages?max=100`);
      assert.equal(listed.headers.get('x-total-count'), '7');
    });

    test('sending: text, media, location, a card with buttons (inline keyboard) and quick replies (reply keyboard)', async () => {
      const bot = await connectBot();
      const { userId, contactId } = await startedUser(bot);
      const cases: Array<[Record<string, unknown>, (m: any) => void]> = [
        [{ type: 'text', payload: 'Hello!' }, (m) => assert.deepEqual([m.method, m.params.text], ['sendMessage', 'Hello!'])],
        [
          { type: 'image', payload: { url: h.media.url('photo.png') } },
          (m) => assert.deepEqual([m.method, m.params.photo], ['sendPhoto', h.media.url('photo.png')]),
        ],
        [{ type: 'video', payload: { url: h.media.url('clip.mp4') } }, (m) => assert.equal(m.method, 'sendVideo')],
        [{ type: 'audio', payload: { url: h.media.url('song.mp3') } }, (m) => assert.equal(m.method, 'sendAudio')],
        [{ type: 'file', payload: { url: h.media.url('terms.pdf') } }, (m) => assert.equal(m.method, 'sendDocument')],
        [{ type: 'location', payload: { latitude: 50.1, longitude: 14.4 } }, (m) => assert.deepEqual(m.message.location, { latitude: 50.1, longitude: 14.4 })],
        [
          {
            type: 'structure',
            payload: {
              title: 'Latte',
              text: 'Oat milk',
              image_url: h.media.url('photo.png'),
              buttons: [
                { type: 'postback', title: 'Order', payload: 'ORDER' },
                { type: 'url', title: 'Menu', payload: 'https://example.com/menu' },
              ],
            },
          },
          (m) => {
            assert.equal(m.method, 'sendPhoto');
            assert.equal(m.params.caption, 'Latte\nOat milk');
            assert.deepEqual(m.message.reply_markup, {
              inline_keyboard: [[{ text: 'Order', callback_data: 'ORDER' }], [{ text: 'Menu', url: 'https://example.com/menu' }]],
            });
          },
        ],
        [
          {
            type: 'text',
            payload: 'Size?',
            quick_replies: [{ type: 'text', title: 'Small', payload: 'SIZE_S' }, { type: 'location' }, { type: 'phone_number' }],
          },
          (m) => {
            assert.deepEqual(m.params.reply_markup, {
              keyboard: [[{ text: 'Small' }], [{ text: 'Send location', request_location: true }], [{ text: 'Share phone number', request_contact: true }]],
              one_time_keyboard: true,
              resize_keyboard: true,
            });
          },
        ],
      ];
      for (const [content, check] of cases) {
        const res = await send(bot, contactId, content);
        assert.equal(res.status, 201, `${String(content.type)}: ${res.text}`);
        await bot.hook.waitFor('message_echo', (e) => e.data.id === res.body.id);
        check((await sentByBot(bot, userId)).at(-1));
      }
      // Buttons and quick replies on one message: the platform has one keyboard per message.
      const both = await send(bot, contactId, {
        type: 'structure',
        payload: { title: 'x', buttons: [{ type: 'postback', title: 'a', payload: 'b' }] },
        quick_replies: [{ type: 'text', title: 't', payload: 'p' }],
      });
      assert.equal(both.status, 502);
      assert.match(both.body.errors[0].message, /either an inline keyboard or a reply keyboard/);
      const email = await send(bot, contactId, { type: 'text', payload: 'mail?', quick_replies: [{ type: 'email' }] });
      assert.equal(email.status, 422);
      const typing = await h.s.api.post('/v1/notifications', { channel: { id: bot.channelId }, contact: { id: contactId }, type: 'typing_on' });
      assert.equal(typing.status, 200, typing.text);
      assert.deepEqual(
        (await h.bmSandbox(`/bots/${bot.botId}/chat_actions?chat_id=${userId}`)).body.chat_actions.map((a: any) => a.action),
        ['typing'],
      );
      assert.equal((await h.s.api.post('/v1/notifications', { channel: { id: bot.channelId }, contact: { id: contactId }, type: 'typing_off' })).status, 422);
    });

    test('button presses arrive as postback (long payloads by reference) and are answered; quick-reply taps carry their payload', async () => {
      const bot = await connectBot();
      const { userId, contactId } = await startedUser(bot);
      const long = `LONG_${'x'.repeat(200)}`;
      const card = await send(bot, contactId, {
        type: 'structure',
        payload: {
          text: 'Pick',
          buttons: [
            { type: 'postback', title: 'Short', payload: 'SHORT' },
            { type: 'postback', title: 'Long', payload: long },
          ],
        },
      });
      assert.equal(card.status, 201, card.text);
      const sent = (await sentByBot(bot, userId)).at(-1);
      assert.deepEqual(sent.message.reply_markup.inline_keyboard, [[{ text: 'Short', callback_data: 'SHORT' }], [{ text: 'Long', callback_data: '~btn:1' }]]);
      const short = await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/callback_query`, { message_id: sent.message_id, row: 0, column: 0 });
      assert.equal(short.body.webhook.status, 200, short.text);
      assert.deepEqual((await bot.hook.waitFor('postback', (e) => e.data.postback.payload === 'SHORT')).data.contact, { id: contactId });
      await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/callback_query`, { message_id: sent.message_id, row: 1, column: 0 });
      await bot.hook.waitFor('postback', (e) => e.data.postback.payload === long);
      // Every query was answered (in the webhook's response), so the user's client stops waiting.
      await h.bm.settle();
      const queries = (await h.bmSandbox(`/bots/${bot.botId}/callback_queries`)).body.callback_queries;
      assert.equal(queries.length, 2);
      assert.ok(queries.every((q: any) => q.answer !== null));

      const ask = await send(bot, contactId, {
        type: 'text',
        payload: 'Size?',
        quick_replies: [
          { type: 'text', title: 'Small', payload: 'SIZE_S' },
          { type: 'text', title: 'Large', payload: 'SIZE_L' },
        ],
      });
      assert.equal(ask.status, 201);
      await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/messages`, { text: 'Large' });
      const tap = await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'Large');
      assert.deepEqual(tap.data.content, { type: 'text', payload: 'Large', quick_reply: { payload: 'SIZE_L' } });
      // Typed text that is no quick reply's title stays plain text.
      await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/messages`, { text: 'Medium' });
      assert.deepEqual((await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'Medium')).data.content, {
        type: 'text',
        payload: 'Medium',
      });
    });

    test('a wrong or missing secret token is refused and nothing is stored; a repeated update makes one message', async () => {
      const bot = await connectBot();
      const inbound = `${h.s.baseUrl}/inbound/${bot.channelId}/updates`;
      const update = JSON.stringify({
        update_id: 1,
        message: {
          message_id: 7,
          from: { id: 555, is_bot: false, first_name: 'Forged' },
          chat: { id: 555, type: 'private', first_name: 'Forged' },
          date: 1700000000,
          text: 'forged',
        },
      });
      const contacts = async () => (await h.s.api.get(`/v1/channels/${bot.channelId}/contacts`)).headers.get('x-total-count');
      // Refused like an unknown channel, so the URL does not tell that the channel exists.
      const missing = await http('POST', inbound, update);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.status.code, '404');
      assert.equal((await http('POST', inbound, update, { [SECRET_HEADER]: 'guess' })).status, 404);
      assert.equal((await http('POST', `${h.s.baseUrl}/inbound/${bot.channelId}/other`, update, { [SECRET_HEADER]: 'guess' })).status, 404);
      assert.equal((await http('POST', `${h.s.baseUrl}/inbound/999999999/updates`, update)).status, 404);
      assert.equal(await contacts(), '0');
      const secret = (await h.bmSandbox(`/bots/${bot.botId}/webhook`)).body.webhook.secretToken;
      assert.equal((await http('POST', inbound, update, { [SECRET_HEADER]: secret })).status, 200);
      assert.equal(await contacts(), '1');

      const { userId, contactId } = await startedUser(bot);
      const said = await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/messages`, { text: 'only once' });
      await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'only once');
      for (let i = 0; i < 2; i++) assert.equal((await h.bmSandbox(`/webhooks/${said.body.webhook.delivery_id}/redeliver`, {})).body.webhook.status, 200);
      const listed = await h.s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}/messages`);
      assert.equal(listed.body.filter((m: any) => m.content.payload === 'only once').length, 1);
      await expectQuiet(300, 'a redelivered platform event is reported once');
      assert.equal(bot.hook.events.filter((e) => e.event === 'message_received' && e.data.content.payload === 'only once').length, 1);
    });

    test('a card with buttons and no title or text (white space only) is refused at Send Message (422 naming the field), nothing sent', async () => {
      const bot = await connectBot();
      const { userId, contactId } = await startedUser(bot);
      const before = (await sentByBot(bot, userId)).length;
      const buttons = [{ type: 'postback', title: 'Order', payload: 'ORDER' }];
      for (const payload of [{ buttons }, { title: '  ', buttons }, { text: ' \n ', buttons }]) {
        const res = await send(bot, contactId, { type: 'structure', payload });
        assert.equal(res.status, 422, res.text);
        assert.equal(res.body.errors[0].field, 'content.payload.title');
      }
      assert.equal((await sentByBot(bot, userId)).length, before, 'nothing reached the platform');
      // The smallest card that carries text goes out; so does one whose only text is its image's link.
      assert.equal((await send(bot, contactId, { type: 'structure', payload: { text: 'x', buttons } })).status, 201);
      const image = await send(bot, contactId, { type: 'structure', payload: { title: ' ', image_url: h.media.url('photo.png'), buttons } });
      assert.equal(image.status, 201, image.text);
      assert.equal((await sentByBot(bot, userId)).at(-1).method, 'sendPhoto');
    });

    test('an unknown chat (400 chat not found) fails the message with code 3; blocking the bot reaches the service as my_chat_member', async () => {
      const bot = await connectBot();
      const { userId, contactId } = await startedUser(bot);
      await h.bmSandbox('/faults', { kind: 'error', endpoint: 'sendMessage', status: 400, message: 'Bad Request: chat not found', count: 1 });
      const lost = await send(bot, contactId, { type: 'text', payload: 'anyone?' });
      assert.equal(lost.status, 502, lost.text);
      const stored = await h.s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}/messages`);
      const failed = stored.body.find((m: any) => m.content.payload === 'anyone?');
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error.code, 3, JSON.stringify(failed.error));
      await http('DELETE', `${h.bmBase}/_sandbox/faults`);
      // The bot asks for membership updates: the user's block is delivered and answered 200.
      const blocked = await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/block`, {});
      assert.equal(blocked.body.webhook_skipped, undefined, blocked.text);
      assert.equal(blocked.body.webhook?.status, 200, blocked.text);
      assert.equal(blocked.body.update.my_chat_member.new_chat_member.status, 'kicked');
    });

    test('platform failures answer 502 with the reason: blocked user, rate limit, 5xx, timeout', async () => {
      const bot = await connectBot();
      const { userId, contactId } = await startedUser(bot);
      const text = (payload: string) => send(bot, contactId, { type: 'text', payload });
      await h.bmSandbox('/faults', { kind: 'rate_limit', endpoint: 'sendMessage', retry_after: 7 });
      const limited = await text('rate');
      assert.equal(limited.status, 502);
      assert.match(limited.body.errors[0].message, /Too Many Requests: retry after 7/);
      await h.bmSandbox('/faults', { kind: 'server_error', endpoint: 'sendMessage', status: 500 });
      assert.equal((await text('5xx')).status, 502);
      await h.bmSandbox('/faults', { kind: 'timeout', endpoint: 'sendMessage', delay_ms: 4000 });
      const slow = await text('slow');
      assert.equal(slow.status, 502);
      assert.match(slow.body.errors[0].message, /did not answer within 1500 ms/);
      await http('DELETE', `${h.bmBase}/_sandbox/faults`);
      await h.bmSandbox(`/bots/${bot.botId}/users/${userId}/block`, {});
      const blocked = await text('blocked');
      assert.equal(blocked.status, 502);
      assert.match(blocked.body.errors[0].message, /bot was blocked by the user/);
      assert.equal(bot.hook.events.filter((e) => e.event === 'message_echo').length, 0);
    });
  });
}
