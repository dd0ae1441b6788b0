import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { eventually } from '../helpers/waits.js';
import { HUGE_VIDEO, http, startMediaServer, type JsonAnswer, type MediaServer } from './helpers/harness.js';
import { createAppmsgStandIn } from '../../sandbox/appmsg/server.js';

const AUTH_HEADER = 'X-Test-Auth-Token';
const SIGNATURE_HEADER = 'X-Test-Content-Signature';

/** The stand-in writes 64-bit message tokens as bare numbers: read them as text, as the platform's clients must. */
function parseTokens(text: string): any {
  return JSON.parse(text.replace(/("message_token"\s*:\s*)(-?\d+)/g, '$1"$2"'));
}

interface Bot {
  botId: string;
  token: string;
  channelId: string;
  hook: WebhookReceiver;
  body: any;
}

// Every point of the issue is covered on both stores (the suite is quick).
for (const { dialect, skip, test } of await dialects()) {
  describe(`appmsg connector over real HTTP (${dialect})`, { skip }, () => {
    let s: TestServer;
    let base: string;
    let media: MediaServer;
    const am = createAppmsgStandIn({ authHeaderName: AUTH_HEADER, signatureHeaderName: SIGNATURE_HEADER });
    const receivers: WebhookReceiver[] = [];

    before(async () => {
      base = await am.listen(0);
      media = await startMediaServer();
      s = await startTestServer(dialect, {
        workers: true,
        env: {
          APPMSG_API_URL: base,
          APPMSG_AUTH_HEADER: AUTH_HEADER,
          APPMSG_SIGNATURE_HEADER: SIGNATURE_HEADER,
          MEDIA_ALLOWLIST: new URL(media.url('x')).host,
          PLATFORM_TIMEOUT_MS: '1500',
          WEBHOOK_RETRY_SCHEDULE: '1,1,1',
        },
      });
    });
    after(async () => {
      await s?.close();
      await Promise.allSettled([am.close(), media?.close(), ...receivers.map((r) => r.close())]);
    });

    async function sandbox(path: string, body?: unknown): Promise<JsonAnswer> {
      const res = await fetch(`${base}/_sandbox${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      const text = await res.text();
      return { status: res.status, body: parseTokens(text), text };
    }

    async function connect(name = 'Coffee Shop Prague Old Town Roasters'): Promise<Bot> {
      const made = await sandbox('/bots', { name, uri: `coffee${Math.random().toString(36).slice(2, 8)}` });
      assert.equal(made.status, 201, made.text);
      const hook = await startWebhookReceiver();
      receivers.push(hook);
      const res = await s.api.post('/v1/channels', {
        type: 'appmsg',
        name: 'Bot account',
        webhook: { url: hook.url },
        appmsg: { access_token: made.body.token },
      });
      assert.equal(res.status, 201, res.text);
      hook.secret = res.body.webhook.secret;
      return { botId: made.body.bot.id, token: made.body.token, channelId: res.body.id, hook, body: res.body };
    }

    /** A user who subscribed: the service knows them as a contact. */
    async function subscribedUser(bot: Bot, extra: Record<string, unknown> = {}): Promise<{ userId: string; contactId: string }> {
      const user = await sandbox(`/bots/${bot.botId}/users`, { name: 'Jana Nováková', country: 'CZ', language: 'cs', ...extra });
      assert.equal(user.status, 201, user.text);
      const userId = user.body.user.id as string;
      const sub = await sandbox(`/bots/${bot.botId}/users/${encodeURIComponent(userId)}/subscribe`, {});
      assert.equal(sub.body.webhook?.status, 200, sub.text);
      const event = await bot.hook.waitFor('opt_in', (e) => e.data.opt_in.type === 'subscribed' && e.data.contact.id !== undefined);
      return { userId, contactId: event.data.contact.id };
    }

    const userPath = (bot: Bot, userId: string, action: string) => `/bots/${bot.botId}/users/${encodeURIComponent(userId)}/${action}`;

    function send(bot: Bot, contactId: string, content: Record<string, unknown>) {
      return s.api.post('/v1/messages', { channel: { id: bot.channelId }, contact: { id: contactId }, content });
    }

    async function sentToUser(bot: Bot, userId: string): Promise<any[]> {
      return (await sandbox(`/bots/${bot.botId}/messages?receiver=${encodeURIComponent(userId)}`)).body.messages;
    }

    const eventsUrl = (bot: Bot) => `${s.baseUrl}/inbound/${bot.channelId}/events`;

    test('connecting an account reads its name, uri and icon, registers the webhook, and removes it on delete and on another token', async () => {
      const bot = await connect();
      assert.deepEqual(Object.keys(bot.body.appmsg), ['id', 'name', 'uri', 'icon', 'access_token']);
      assert.equal(bot.body.appmsg.id, bot.botId);
      assert.equal(bot.body.appmsg.name, 'Coffee Shop Prague Old Town Roasters');
      assert.match(bot.body.appmsg.uri, /^coffee/);
      assert.equal(bot.body.appmsg.access_token, bot.token);
      // The platform's limits as the capabilities declare them.
      const caps = (await s.api.get(`/v1/channels/${bot.channelId}/capabilities`)).body;
      assert.deepEqual(caps.content_types, ['text', 'image', 'video', 'file', 'location', 'structure']);
      assert.deepEqual([caps.delivery, caps.sending, caps.max_text_length, caps.max_cards], ['sync', 'direct', 7000, 6]);
      assert.deepEqual(caps.buttons, { types: ['url', 'postback'], max_per_card: 3 });
      assert.deepEqual(caps.quick_replies, { max: 11, rendering: 'native', types: ['text', 'location', 'phone_number'] });
      const got = await s.api.get(`/v1/channels/${bot.channelId}`);
      assert.deepEqual(got.body.appmsg, bot.body.appmsg);
      const webhook = (await sandbox(`/bots/${bot.botId}`)).body.bot.webhook;
      assert.equal(webhook.url, eventsUrl(bot));
      assert.deepEqual(webhook.eventTypes, ['delivered', 'seen', 'failed', 'subscribed', 'unsubscribed', 'conversation_started']);
      assert.equal(webhook.sendName, true);
      assert.equal(webhook.sendPhoto, true);
      // The platform's check of the URL reached the service and was answered 200.
      const checks = (await sandbox('/webhooks?kind=webhook')).body;
      assert.ok(JSON.stringify(checks).includes(eventsUrl(bot)), 'the verification call went to the channel URL');

      const bad = await s.api.post('/v1/channels', { type: 'appmsg', name: 'x', appmsg: { access_token: 'wrong-token' } });
      assert.equal(bad.status, 422, bad.text);
      assert.equal(bad.body.errors[0].field, 'appmsg.access_token');
      await sandbox('/faults', { kind: 'server_error', endpoint: 'get_account_info', status: 503 });
      const down = await s.api.post('/v1/channels', { type: 'appmsg', name: 'x', appmsg: { access_token: bot.token } });
      assert.equal(down.status, 502, down.text);
      assert.equal((await sandbox(`/bots/${bot.botId}`)).body.bot.webhook.url, eventsUrl(bot), 'a refused channel moved nothing');

      // The platform refuses the webhook (its check got no answer, or it is down): nothing is kept.
      const before = (await s.api.get('/v1/channels?max=100')).headers.get('x-total-count');
      await sandbox('/faults', { kind: 'server_error', endpoint: 'set_webhook', status: 500 });
      const unregistered = await s.api.post('/v1/channels', { type: 'appmsg', name: 'x', appmsg: { access_token: bot.token } });
      assert.equal(unregistered.status, 502, unregistered.text);
      assert.equal((await s.api.get('/v1/channels?max=100')).headers.get('x-total-count'), before);
      assert.equal((await sandbox(`/bots/${bot.botId}`)).body.bot.webhook.url, eventsUrl(bot));
      const third = await sandbox('/bots', { name: 'Juice Bar' });
      await sandbox('/faults', { kind: 'error', endpoint: 'set_webhook', code: 1, message: 'Invalid URL' });
      const notMoved = await s.api.patch(`/v1/channels/${bot.channelId}`, { appmsg: { access_token: third.body.token } });
      assert.equal(notMoved.status, 502, notMoved.text);
      assert.match(notMoved.body.errors[0].message, /Invalid URL/);
      const kept = (await s.api.get(`/v1/channels/${bot.channelId}`)).body.appmsg;
      assert.deepEqual([kept.access_token, kept.name], [bot.token, 'Coffee Shop Prague Old Town Roasters'], 'the old token and account stay');
      assert.equal((await sandbox(`/bots/${third.body.bot.id}`)).body.bot.webhook, null);

      // Another account's token: the webhook moves to the new account, the old one's is removed.
      const other = await sandbox('/bots', { name: 'Tea House' });
      const moved = await s.api.patch(`/v1/channels/${bot.channelId}`, { appmsg: { access_token: other.body.token } });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.appmsg.name, 'Tea House');
      assert.equal(moved.body.appmsg.id, other.body.bot.id);
      assert.equal((await sandbox(`/bots/${other.body.bot.id}`)).body.bot.webhook.url, eventsUrl(bot));
      assert.equal((await sandbox(`/bots/${bot.botId}`)).body.bot.webhook, null);

      const deleted = await s.api.delete(`/v1/channels/${bot.channelId}`);
      assert.equal(deleted.status, 204, deleted.text);
      // A late callback, signed with the token that still works, finds no channel.
      const late = JSON.stringify({ event: 'seen', timestamp: Date.now(), message_token: 1, user_id: 'u' });
      const lateAnswer = await http('POST', eventsUrl(bot), late, {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: createHmac('sha256', other.body.token).update(late).digest('hex'),
      });
      assert.equal(lateAnswer.status, 404);
      assert.equal((await sandbox(`/bots/${other.body.bot.id}`)).body.bot.webhook, null);
    });

    test('a subscribed user writes: opt_in with the profile (avatar re-hosted, country, language), messages of every kind, files re-hosted', async () => {
      const bot = await connect();
      const { userId, contactId } = await subscribedUser(bot);
      const optIn = bot.hook.events.find((e) => e.event === 'opt_in')!;
      assert.ok(optIn.signatureValid);
      assert.deepEqual(optIn.data.opt_in, { type: 'subscribed' });
      assert.deepEqual(optIn.data.channel, { id: bot.channelId, type: 'appmsg', name: 'Bot account' });
      const contact = (await s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}`)).body;
      assert.equal(contact.name, 'Jana Nováková');
      assert.equal(contact.country, 'CZ');
      assert.equal(contact.language, 'cs');
      assert.ok(contact.photo_url.startsWith(`${s.baseUrl}/files/`), contact.photo_url);
      const picture = await fetch(contact.photo_url);
      assert.equal(picture.headers.get('content-type'), 'image/png');

      await sandbox(userPath(bot, userId, 'messages'), { text: 'Ahoj 👋' });
      const text = await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'Ahoj 👋');
      assert.equal(text.data.contact.id, contactId);
      assert.equal(text.data.content.quick_reply, undefined);

      const pdf = Buffer.from('%PDF-1.4 menu');
      await sandbox(userPath(bot, userId, 'media'), { type: 'file', file_name: 'menu.pdf', content_base64: pdf.toString('base64') });
      const file = await bot.hook.waitFor('message_received', (e) => e.data.content.type === 'file');
      assert.ok(file.data.content.payload.url.startsWith(`${s.baseUrl}/files/`));
      assert.ok(file.data.content.payload.url.endsWith('/menu.pdf'));
      assert.deepEqual(Buffer.from(await (await fetch(file.data.content.payload.url)).arrayBuffer()), pdf);

      await sandbox(userPath(bot, userId, 'media'), { type: 'picture', text: 'my cup' });
      const photo = await bot.hook.waitFor('message_received', (e) => e.data.content.type === 'image');
      assert.ok(photo.data.content.payload.url.startsWith(`${s.baseUrl}/files/`));
      assert.equal((await fetch(photo.data.content.payload.url)).headers.get('content-type'), 'image/png');
      await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'my cup');

      await sandbox(userPath(bot, userId, 'media'), { type: 'video' });
      const video = await bot.hook.waitFor('message_received', (e) => e.data.content.type === 'video');
      assert.ok(video.data.content.payload.url.startsWith(`${s.baseUrl}/files/`));

      await sandbox(userPath(bot, userId, 'location'), { lat: 49.19, lon: 16.6 });
      const loc = await bot.hook.waitFor('message_received', (e) => e.data.content.type === 'location');
      assert.deepEqual(loc.data.content.payload, { latitude: 49.19, longitude: 16.6 });

      await sandbox(userPath(bot, userId, 'contact'), { name: 'Jana', phone_number: '420601000222' });
      await bot.hook.waitFor('message_received', (e) => e.data.content.payload === '420601000222');
      const listed = await s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}/messages?max=100`);
      assert.equal(listed.headers.get('x-total-count'), '7');
    });

    test('a user who writes first is made a contact; conversation_started updates the profile and reports its context', async () => {
      const bot = await connect();
      const user = await sandbox(`/bots/${bot.botId}/users`, { name: 'Petr', country: 'SK', language: 'sk' });
      const userId = user.body.user.id as string;
      await sandbox(userPath(bot, userId, 'messages'), { text: 'First!' });
      const first = await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'First!');
      const contactId = first.data.contact.id;
      assert.equal((await s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}`)).body.name, 'Petr');

      const opened = await sandbox(userPath(bot, userId, 'conversation_started'), { context: 'campaign-42' });
      assert.equal(opened.body.webhook.status, 200, opened.text);
      const optIn = await bot.hook.waitFor('opt_in', (e) => e.data.opt_in.type === 'conversation_started');
      assert.deepEqual(optIn.data.opt_in, { type: 'conversation_started', payload: 'campaign-42' });
      assert.equal(optIn.data.contact.id, contactId);
      const contact = (await s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}`)).body;
      assert.equal(contact.country, 'SK');
      assert.ok(contact.photo_url.startsWith(`${s.baseUrl}/files/`));
    });

    test('every callback is checked by its content signature on the raw body; a bad or missing one stores nothing; a repeated call changes nothing twice', async () => {
      const bot = await connect();
      const { userId, contactId } = await subscribedUser(bot);
      const body = JSON.stringify({
        event: 'message',
        timestamp: Date.now(),
        message_token: 5741311803571721999n.toString(),
        sender: { id: userId, name: 'Jana' },
        message: { type: 'text', text: 'signed by hand' },
      }).replace('"5741311803571721999"', '5741311803571721999');
      const sign = (key: string) => createHmac('sha256', key).update(body).digest('hex');
      const post = (headers: Record<string, string>, query = '') =>
        http('POST', `${eventsUrl(bot)}${query}`, body, { 'content-type': 'application/json', ...headers });

      const unsigned = await post({});
      assert.equal(unsigned.status, 404, unsigned.text);
      // The same answer as a channel that does not exist: the URL does not tell which.
      const unknown = await http('POST', `${s.baseUrl}/inbound/999999999/events`, body, {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: sign(bot.token),
      });
      assert.deepEqual(unsigned.body.errors, unknown.body.errors);
      assert.deepEqual(unsigned.body.errors, [{ message: 'Channel not found.' }]);
      const wrongKey = await post({ [SIGNATURE_HEADER]: sign('another-token') });
      assert.equal(wrongKey.status, 404);
      const otherBody = await post({ [SIGNATURE_HEADER]: createHmac('sha256', bot.token).update(`${body} `).digest('hex') });
      assert.equal(otherBody.status, 404);
      const messages = async () => (await s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}/messages?max=100`)).headers.get('x-total-count');
      assert.equal(await messages(), '0');

      // The platform's SDK also sends the signature as the `sig` query parameter.
      const byQuery = await post({}, `?sig=${sign(bot.token)}`);
      assert.equal(byQuery.status, 200, byQuery.text);
      const byHeader = await post({ [SIGNATURE_HEADER]: sign(bot.token) });
      assert.equal(byHeader.status, 200);
      await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'signed by hand');
      assert.equal(await messages(), '1');

      // The stand-in calls again (the platform retries for up to an hour): one event each.
      const said = await sandbox(userPath(bot, userId, 'messages'), { text: 'once' });
      await sandbox(`/webhooks/${said.body.webhook.delivery_id}/redeliver`, {});
      const again = await sandbox(userPath(bot, userId, 'subscribe'), {});
      await sandbox(`/webhooks/${again.body.webhook.delivery_id}/redeliver`, {});
      await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'once');
      await eventually(async () => ((await messages()) === '2' ? true : undefined));
      const sentMessage = await send(bot, contactId, { type: 'text', payload: 'after the replays' });
      await bot.hook.waitFor('message_echo', (e) => e.data.id === sentMessage.body.id);
      assert.equal(bot.hook.events.filter((e) => e.event === 'message_received' && e.data.content.payload === 'once').length, 1);
      assert.equal(bot.hook.events.filter((e) => e.event === 'opt_in').length, 2, 'the first subscription and the second, each once');
      assert.equal(await messages(), '3');
    });

    test('sending: text at its limit, picture, video and file with their size, location, cards and a carousel as rich media, under the account name and icon', async () => {
      const bot = await connect();
      const { userId, contactId } = await subscribedUser(bot);
      const cases: Array<[Record<string, unknown>, (m: any) => void]> = [
        [{ type: 'text', payload: 'x'.repeat(7000) }, (m) => assert.deepEqual([m.type, m.text.length, m.min_api_version], ['text', 7000, 1])],
        [{ type: 'image', payload: { url: media.url('photo.png') } }, (m) => assert.deepEqual([m.type, m.media], ['picture', media.url('photo.png')])],
        [{ type: 'video', payload: { url: media.url('clip.mp4') } }, (m) => assert.deepEqual([m.type, m.media, m.size], ['video', media.url('clip.mp4'), 18])],
        [{ type: 'file', payload: { url: media.url('terms.pdf') } }, (m) => assert.deepEqual([m.type, m.size, m.file_name], ['file', 25, 'terms.pdf'])],
        [{ type: 'location', payload: { latitude: 50.1, longitude: 14.4 } }, (m) => assert.deepEqual(m.location, { lat: 50.1, lon: 14.4 })],
        [
          {
            type: 'structure',
            payload: {
              title: 'Latte',
              text: 'Oat milk',
              image_url: media.url('photo.png'),
              buttons: [
                { type: 'postback', title: 'Order', payload: 'ORDER_LATTE' },
                { type: 'url', title: 'Menu', payload: 'https://example.com/menu' },
                { type: 'postback', title: 'Later', payload: 'LATER' },
              ],
            },
          },
          (m) => {
            assert.equal(m.type, 'rich_media');
            assert.ok(m.min_api_version >= 2);
            assert.equal(m.rich_media.ButtonsGroupRows, 7);
            const cells = m.rich_media.Buttons;
            assert.equal(
              cells.reduce((n: number, c: any) => n + c.Rows, 0),
              7,
              'one card fills its group',
            );
            assert.equal(cells[0].Image, media.url('photo.png'));
            assert.match(cells[1].Text, /<b>Latte<\/b><br>Oat milk/);
            assert.deepEqual(
              cells.slice(2).map((c: any) => [c.ActionType, c.ActionBody]),
              [
                ['reply', 'ORDER_LATTE'],
                ['open-url', 'https://example.com/menu'],
                ['reply', 'LATER'],
              ],
            );
            assert.match(m.tracking_data, /^pl1\|/);
          },
        ],
        [
          {
            type: 'structure',
            payload: Array.from({ length: 6 }, (_, i) => ({ title: `Cup ${i}`, buttons: [{ type: 'postback', title: 'Pick', payload: `CUP_${i}` }] })),
          },
          (m) => {
            assert.equal(
              m.rich_media.Buttons.reduce((n: number, c: any) => n + c.Rows, 0),
              6 * 7,
              'six groups of seven rows scroll sideways',
            );
            assert.equal(m.alt_text, 'Cup 0');
          },
        ],
      ];
      for (const [content, check] of cases) {
        const res = await send(bot, contactId, content);
        assert.equal(res.status, 201, `${content.type}: ${res.text}`);
        assert.equal(res.body.status ?? 'sent', 'sent');
        const last = (await sentToUser(bot, userId)).at(-1).body;
        assert.deepEqual(last.sender, { name: 'Coffee Shop Prague Old Town' }, 'the account name, cut to 28 characters');
        assert.equal(last.receiver, userId);
        check(last);
      }
      const echoes = await eventually(async () => {
        const n = bot.hook.events.filter((e) => e.event === 'message_echo').length;
        return n === cases.length ? n : undefined;
      });
      assert.equal(echoes, cases.length);
      // The size of a video or file is asked of its server (HEAD); the file is not downloaded.
      const sized = media.requests.filter((r) => r.name === 'clip.mp4' || r.name === 'terms.pdf');
      assert.deepEqual(
        sized.map((r) => r.method),
        ['HEAD', 'HEAD'],
      );
    });

    test('a video over the platform limit is refused from its size alone (HEAD), never downloaded', async () => {
      const bot = await connect();
      const { userId, contactId } = await subscribedUser(bot);
      const res = await send(bot, contactId, { type: 'video', payload: { url: media.url(HUGE_VIDEO.name) } });
      assert.equal(res.status, 502, res.text);
      assert.match(res.body.errors[0].message, /larger than the platform takes \(26 MB\)/);
      assert.deepEqual(
        media.requests.filter((r) => r.name === HUGE_VIDEO.name).map((r) => r.method),
        ['HEAD'],
      );
      assert.equal((await sentToUser(bot, userId)).length, 0);
    });

    test("the platform's limits are enforced at Send Message (422 naming the field), nothing sent", async () => {
      const bot = await connect();
      const { userId, contactId } = await subscribedUser(bot);
      const long = `https://example.com/${'a'.repeat(1990)}`;
      const refusals: Array<[Record<string, unknown>, string]> = [
        [{ type: 'text', payload: 'x'.repeat(7001) }, 'content.payload'],
        [{ type: 'audio', payload: { url: media.url('song.mp3') } }, 'content.type'],
        [{ type: 'structure', payload: Array.from({ length: 7 }, (_, i) => ({ title: `Cup ${i}` })) }, 'content.payload'],
        [{ type: 'structure', payload: { title: 'x', buttons: [{ type: 'url', title: 'Menu', payload: long }] } }, 'content.payload.buttons[0].payload'],
        [{ type: 'structure', payload: [{ title: 'a' }, { title: 'x', item_url: long }] }, 'content.payload[1].item_url'],
        [
          {
            type: 'text',
            payload: '€'.repeat(7000),
            quick_replies: Array.from({ length: 11 }, (_, i) => ({ type: 'text', title: `T${i}`, payload: 'p'.repeat(1000) })),
          },
          'content',
        ],
      ];
      for (const [content, field] of refusals) {
        const res = await send(bot, contactId, content);
        assert.equal(res.status, 422, `${field}: ${res.text.slice(0, 300)}`);
        assert.equal(res.body.errors[0].field, field, res.text);
      }
      assert.equal((await sentToUser(bot, userId)).length, 0);
      // At the boundary: 2000 characters of URL pass.
      const edge = `https://example.com/${'a'.repeat(2000 - 20)}`;
      const ok = await send(bot, contactId, { type: 'structure', payload: { title: 'x', item_url: edge } });
      assert.equal(ok.status, 201, ok.text);
      // 7000 characters of three bytes each still fit the platform's 30 KB.
      const wide = await send(bot, contactId, { type: 'text', payload: '€'.repeat(7000) });
      assert.equal(wide.status, 201, wide.text.slice(0, 300));
      assert.equal((await sentToUser(bot, userId)).length, 2);
    });

    test('quick replies as a keyboard (reply, location-picker, share-phone); taps come back as quick_reply payloads and postbacks; a URL tap reports nothing', async () => {
      const bot = await connect();
      const { userId, contactId } = await subscribedUser(bot);
      const res = await send(bot, contactId, {
        type: 'text',
        payload: 'Which size?',
        quick_replies: [{ type: 'text', title: 'Large', payload: 'SIZE_L' }, { type: 'location' }, { type: 'phone_number' }],
      });
      assert.equal(res.status, 201, res.text);
      const sent = (await sentToUser(bot, userId)).at(-1);
      assert.deepEqual(
        sent.body.keyboard.Buttons.map((b: any) => [b.ActionType, b.ActionBody]),
        [
          ['reply', 'SIZE_L'],
          ['location-picker', 'location'],
          ['share-phone', 'phone'],
        ],
      );
      assert.equal(sent.body.keyboard.Type, 'keyboard');
      assert.equal(sent.body.min_api_version, 3);

      await sandbox(userPath(bot, userId, 'button'), { message_token: sent.message_token, index: 0 });
      const tapped = await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'SIZE_L');
      assert.deepEqual(tapped.data.content.quick_reply, { payload: 'SIZE_L' });
      await sandbox(userPath(bot, userId, 'button'), { message_token: sent.message_token, index: 1 });
      await bot.hook.waitFor('message_received', (e) => e.data.content.type === 'location');
      await sandbox(userPath(bot, userId, 'button'), { message_token: sent.message_token, index: 2, phone_number: '420777000333' });
      await bot.hook.waitFor('message_received', (e) => e.data.content.payload === '420777000333');
      // Typed text that equals a payload offered earlier is still typed text once another message went out.
      const card = await send(bot, contactId, {
        type: 'structure',
        payload: {
          title: 'Latte',
          buttons: [
            { type: 'postback', title: 'Order', payload: 'ORDER_LATTE' },
            { type: 'url', title: 'Menu', payload: 'https://example.com/menu' },
          ],
        },
      });
      assert.equal(card.status, 201, card.text);
      const cardSent = (await sentToUser(bot, userId)).at(-1);
      const cells = cardSent.body.rich_media.Buttons;
      await sandbox(userPath(bot, userId, 'button'), {
        message_token: cardSent.message_token,
        index: cells.findIndex((c: any) => c.ActionType === 'open-url'),
      });
      await sandbox(userPath(bot, userId, 'button'), {
        message_token: cardSent.message_token,
        index: cells.findIndex((c: any) => c.ActionBody === 'ORDER_LATTE'),
      });
      const postback = await bot.hook.waitFor('postback');
      assert.deepEqual(postback.data.postback, { payload: 'ORDER_LATTE' });
      assert.equal(postback.data.contact.id, contactId);
      await sandbox(userPath(bot, userId, 'messages'), { text: 'SIZE_L' });
      const typed = await bot.hook.waitFor('message_received', (e) => e.data.content.payload === 'SIZE_L' && e.data.content.quick_reply === undefined);
      assert.ok(typed);
      assert.equal(
        bot.hook.events.filter((e) => e.event === 'message_received' && String(e.data.content.payload).startsWith('https://example.com/menu')).length,
        0,
        'the URL tap is not a message of the user',
      );
    });

    test('receipts: delivered -> messages_delivered, seen -> messages_read (earlier ones too), failed -> message_failed code 1, each once', async () => {
      const bot = await connect();
      const { userId, contactId } = await subscribedUser(bot);
      const first = await send(bot, contactId, { type: 'text', payload: 'one' });
      const second = await send(bot, contactId, { type: 'text', payload: 'two' });
      const third = await send(bot, contactId, { type: 'text', payload: 'three' });
      const sent = await sentToUser(bot, userId);
      const [t1, t2, t3] = sent.map((m) => m.message_token as string);

      const d = await sandbox(userPath(bot, userId, 'delivered'), { message_token: t1 });
      const delivered = await bot.hook.waitFor('messages_delivered');
      assert.deepEqual(delivered.data.messages, [{ id: first.body.id }]);
      await sandbox(`/webhooks/${d.body.callbacks[0].webhook.delivery_id}/redeliver`, {});

      await sandbox(userPath(bot, userId, 'seen'), { message_token: t2 });
      const read = await bot.hook.waitFor('messages_read');
      const message = async (id: string) => (await s.api.get(`/v1/messages/${id}`)).body;
      assert.notEqual((await message(first.body.id)).read, null);
      assert.notEqual((await message(second.body.id)).read, null, 'seen names the last message of a batch: earlier ones are read too');
      assert.equal((await message(third.body.id)).read, null);
      assert.ok(read.data.last_read_timestamp);

      await sandbox(userPath(bot, userId, 'failed'), { message_token: t3, desc: 'keyboard is not valid' });
      const failed = await bot.hook.waitFor('message_failed');
      assert.equal(failed.data.error?.code ?? failed.data.code ?? failed.data.error_code, 1, JSON.stringify(failed.data));
      const f = await message(third.body.id);
      assert.equal(f.status, 'failed');
      assert.match(f.error.message, /keyboard is not valid/);
      await sandbox(userPath(bot, userId, 'failed'), { message_token: t3 });
      const later = await send(bot, contactId, { type: 'text', payload: 'marker' });
      await bot.hook.waitFor('message_echo', (e) => e.data.id === later.body.id);
      await sandbox(userPath(bot, userId, 'delivered'), { message_token: sent.length ? (await sentToUser(bot, userId)).at(-1).message_token : t1 });
      await bot.hook.waitFor('messages_delivered', (e) => e.data.messages[0].id === later.body.id);
      const deliveredFirst = bot.hook.events.filter((e) => e.event === 'messages_delivered' && e.data.messages.some((m: any) => m.id === first.body.id));
      assert.equal(deliveredFirst.length, 1, 'the replayed delivery was reported once');
      assert.equal(bot.hook.events.filter((e) => e.event === 'message_failed').length, 1);
    });

    test("an unsubscribed user: sending answers 502 with the platform's reason until they subscribe again; other status codes too", async () => {
      const bot = await connect();
      const { userId, contactId } = await subscribedUser(bot);
      await sandbox(userPath(bot, userId, 'unsubscribe'), {});
      const refused = await eventually(async () => {
        const r = await send(bot, contactId, { type: 'text', payload: 'Still there?' });
        return r.status === 502 ? r : undefined;
      });
      assert.match(refused.body.errors[0].message, /not subscribed/);
      const kept = (await s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}/messages?max=10`)).body;
      assert.equal(kept[0].status, 'failed');
      assert.equal(kept[0].error.code, 2, 'not subscribed reads as the user refusing the sender');
      assert.equal((await sentToUser(bot, userId)).length, 0);

      await sandbox(userPath(bot, userId, 'subscribe'), {});
      await bot.hook.waitFor('opt_in', (e) => bot.hook.events.filter((x) => x.event === 'opt_in').indexOf(e) === 1);
      const back = await send(bot, contactId, { type: 'text', payload: 'Welcome back' });
      assert.equal(back.status, 201, back.text);

      await sandbox('/faults', { kind: 'rate_limit', endpoint: 'send_message' });
      const limited = await send(bot, contactId, { type: 'text', payload: 'too many' });
      assert.equal(limited.status, 502);
      assert.match(limited.body.errors[0].message, /too many requests/i);
      await sandbox(`/bots/${bot.botId}/block`, {});
      const blocked = await send(bot, contactId, { type: 'text', payload: 'blocked' });
      assert.equal(blocked.status, 502);
      assert.match(blocked.body.errors[0].message, /account is blocked/);
      await sandbox(`/bots/${bot.botId}/unblock`, {});
      await sandbox('/faults', { kind: 'server_error', endpoint: 'send_message', status: 500 });
      const down = await send(bot, contactId, { type: 'text', payload: 'down' });
      assert.equal(down.status, 502);
      assert.match(down.body.errors[0].message, /HTTP 500/);

      // Every other status: 502 with its meaning and the platform's message; kept failed with its message_failed code.
      const statuses: Array<[number, string, RegExp, number]> = [
        [5, 'receiverNotRegistered', /not registered on the platform/, 3],
        [2, 'invalidAuthToken', /token is not valid/, 1],
        [3, 'badData', /message is not valid/, 1],
        [10, 'webhookNotSet', /no webhook is set/, 1],
        [11, 'receiverNoSuitableDevice', /app is too old/, 1],
        [21, 'unsupportedCountry', /status 21, unsupportedCountry/, 1],
      ];
      for (const [code, name, meaning, failedCode] of statuses) {
        await sandbox('/faults', { kind: 'error', endpoint: 'send_message', code, message: name });
        const res = await send(bot, contactId, { type: 'text', payload: `status ${code}` });
        assert.equal(res.status, 502, res.text);
        assert.match(res.body.errors[0].message, meaning);
        assert.match(res.body.errors[0].message, new RegExp(name));
        const stored = (await s.api.get(`/v1/channels/${bot.channelId}/contacts/${contactId}/messages?max=1`)).body[0];
        assert.deepEqual([stored.content.payload, stored.status, stored.error.code], [`status ${code}`, 'failed', failedCode]);
      }
    });
  });
}
