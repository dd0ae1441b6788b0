/**
 * A realistic account for the administration app's screenshots: the service with the platform
 * stand-ins, a café's account with its users, tokens, one channel of each type and a day of
 * traffic through the real paths (a page's customers writing and answered, order updates by SMS
 * and their replies, a webhook receiver that was down for a few hours).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/lib/clock.js';
import { createBotmsgStandIn } from '../../sandbox/botmsg/server.js';
import { createRbmStandIn } from '../../sandbox/rbm/server.js';
import { createAppmsgStandIn } from '../../sandbox/appmsg/server.js';
import { createMailproviderStandIn } from '../../sandbox/mailprovider/server.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import { createSocialnetChatStandIn } from '../../sandbox/socialnet_chat/server.js';
import { ApiClient } from '../../test/helpers/api-client.js';
import { startTestServer, type TestServer } from '../../test/helpers/runtime.js';

const HOUR = 3_600_000;
const APP_ID = '700100200300500';
const APP_SECRET = 'app-secret-of-the-screenshots';
const SMS_KEY = 'live_cornercafe_sms_key_0001';
const SMS_SIGNING_KEY = 'cornercafe-signing-key';
const SMS_NUMBER = '+420601000123';

/** Real time moved by an offset the seeding steps forward, so a day of traffic falls in its hours. */
class SteppedClock implements Clock {
  offset = -22 * HOUR;
  now(): number {
    return Date.now() + this.offset;
  }
}

/** A webhook receiver of the café's order system: answers 200, or 503 while `down`. */
interface Receiver {
  url: string;
  down: boolean;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const state = { down: false };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => (state.down ? res.writeHead(503).end('order system is restarting') : res.writeHead(200).end('ok')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/parley/events`,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function http(method: string, url: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text
  }
  return { status: res.status, body: parsed, text };
}

export interface SeededAccount {
  server: TestServer;
  origin: string;
  owner: { email: string; password: string };
  member: { email: string; password: string };
  /** The one-time setup link of a user who has not chosen a password yet. */
  setupLink: string;
  channels: Record<'page' | 'sms' | 'site' | 'bot' | 'rbm' | 'app' | 'business' | 'mail', string>;
  close(): Promise<void>;
}

export async function seedAccount(): Promise<SeededAccount> {
  const clock = new SteppedClock();
  const sn = createSocialnetChatStandIn({ appId: APP_ID, appSecret: APP_SECRET, now: () => clock.now() });
  const snBase = await sn.listen(0);
  const bm = createBotmsgStandIn({ now: () => clock.now() });
  const bmBase = await bm.listen(0);
  const sms = createSmsproviderStandIn({ accessKey: SMS_KEY, signingKey: SMS_SIGNING_KEY, now: () => clock.now() });
  const smsBase = await sms.listen(0);
  const rbmStandIn = createRbmStandIn({ now: () => clock.now() });
  const rbmBase = await rbmStandIn.listen(0);
  const appmsgStandIn = createAppmsgStandIn({ now: () => clock.now() });
  const appmsgBase = await appmsgStandIn.listen(0);
  const mailStandIn = createMailproviderStandIn({
    apiKey: 'cornercafe-mail-key',
    webhookSigningKey: 'cornercafe-mail-signing',
    domains: ['mail.cornercafe.example'],
  });
  const mailBase = await mailStandIn.listen(0);
  const receiver = await startReceiver();
  const server = await startTestServer('sqlite', {
    clock,
    workers: true,
    env: {
      SOCIALNET_API_URL: snBase,
      SOCIALNET_APP_ID: APP_ID,
      SOCIALNET_APP_SECRET: APP_SECRET,
      SOCIALNET_VERIFY_TOKEN: 'verify-token-of-the-screenshots',
      BOTMSG_API_URL: bmBase,
      SMSPROVIDER_API_URL: smsBase,
      RBM_API_URL: rbmBase,
      RBM_MANAGEMENT_URL: `${rbmBase}/mgmt`,
      RBM_TOKEN_URL: `${rbmBase}/token`,
      APPMSG_API_URL: appmsgBase,
      MAILPROVIDER_API_URL: mailBase,
      SANDBOX_URL: snBase,
      ADMIN_PASSWORD_COST: '10',
      // Retries a few seconds of the stepped clock apart: the receiver's outage fails deliveries within the hour.
      WEBHOOK_RETRY_SCHEDULE: '1,2',
    },
  });
  const { accounts, users } = server.runtime.services;
  const account = await accounts.createAccount({ name: 'Corner Café', plan: 'developer' });
  const orderBot = await accounts.createToken(account.id, 'Order system');
  await accounts.createToken(account.id, 'Analytics export');
  const api = new ApiClient(server.origin, orderBot.accessToken);
  const sn_ = (path: string, body?: unknown) => http(body === undefined ? 'GET' : 'POST', `${snBase}/_sandbox${path}`, body);
  const smsControl = (path: string, body?: unknown, method = 'POST') => http(method, `${smsBase}/_sandbox${path}`, body);

  const owner = { email: 'maria@cornercafe.example', password: 'espresso and croissants' };
  const member = { email: 'tomas@cornercafe.example', password: 'flat white every morning' };
  for (const [user, role] of [
    [owner, 'owner'],
    [member, 'member'],
  ] as const) {
    const made = await users.createUser({ accountId: account.id, email: user.email, role });
    const token = new URL(made.setupLink ?? '').searchParams.get('token') ?? '';
    await users.setUp(token, user.password);
  }
  const barista = await users.createUser({ accountId: account.id, email: 'new.barista@cornercafe.example', role: 'member' });

  const create = async (body: Record<string, unknown>) => {
    const res = await api.post('/v1/channels', body);
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };
  const pageMade = await sn_('/pages', { name: 'Corner Café', category: 'Coffee shop' });
  assert.equal(pageMade.status, 201, pageMade.text);
  const pageId = pageMade.body.page.id as string;
  const bot = await http('POST', `${bmBase}/_sandbox/bots`, { username: 'corner_cafe_bot', first_name: 'Corner Café' });
  assert.equal(bot.status, 201, bot.text);
  const channels = {
    page: await create({
      type: 'socialnet_chat',
      name: 'Corner Café page',
      webhook: { url: receiver.url },
      socialnet_page: { id: pageId, access_token: pageMade.body.admin.user_access_token },
    }),
    sms: await create({
      type: 'mobile',
      name: 'Order updates SMS',
      webhook: { url: receiver.url },
      provider: { type: 'smsprovider', sender_id: SMS_NUMBER, access_token: SMS_KEY, signing_key: SMS_SIGNING_KEY },
    }),
    site: await create({ type: 'service_chat', name: 'Website chat', webhook: { url: receiver.url } }),
    bot: await create({ type: 'botmsg', name: 'Café bot', botmsg: { access_token: bot.body.token } }),
    rbm: await create({
      type: 'rbm',
      name: 'RCS offers',
      rbm: { agent_name: 'Corner Café', service_account_key: (await http('POST', `${rbmBase}/_sandbox/partners`, {})).body.service_account_key },
      region: 'europe',
    }),
    app: await create({
      type: 'appmsg',
      name: 'Loyalty app',
      appmsg: { access_token: (await http('POST', `${appmsgBase}/_sandbox/bots`, { name: 'Corner Café', uri: 'cornercafe' })).body.token },
    }),
    business: await create({
      type: 'appmsg_business_messages',
      name: 'Business messages',
      mode: 'test',
      appmsg_business_messages: { sender_id: '4001', default_message_ttl: 'PT2H' },
    }),
    mail: await create({
      type: 'email',
      name: 'Receipts e-mail',
      provider: { type: 'mailprovider', access_token: 'cornercafe-mail-key', sender: { email: 'hello@mail.cornercafe.example', name: 'Corner Café' } },
    }),
  };
  const smsChannel = await api.get(`/v1/channels/${channels.sms}`);
  assert.equal(
    (await smsControl(`/numbers/${encodeURIComponent(SMS_NUMBER)}`, { receive_url: smsChannel.body.provider.receive_webhook_url }, 'PUT')).status,
    200,
  );
  await api.patch(`/v1/channels/${channels.site}/settings`, { domains_whitelist: ['https://cornercafe.example', 'http://localhost:3000'] });
  // The web chat's visitors write in English and Spanish: a built-in NLP integration tells orders from hours.
  const nlp = await api.request('PUT', `/v1/channels/${channels.site}/nlp`, {
    kind: 'builtin',
    languages: ['en', 'es'],
    intents: [
      {
        id: 'order_ahead',
        utterances: {
          en: ['can I order a latte for pick-up', 'I would like to order ahead', 'two cappuccinos to take away please'],
          es: ['quiero pedir un café para llevar', 'puedo encargar un pedido', 'dos capuchinos para llevar por favor'],
        },
      },
      {
        id: 'opening_hours',
        utterances: {
          en: ['when do you open', 'are you open on sunday', 'what time do you close'],
          es: ['a qué hora abrís', 'abrís el domingo', 'a qué hora cerráis'],
        },
      },
    ],
  });
  assert.equal(nlp.status, 201, nlp.text);
  await api.patch(`/v1/channels/${channels.page}/settings`, {
    get_started_button: { payload: 'GET_STARTED' },
    menu: [
      {
        locale: 'default',
        items: [
          { type: 'postback', title: 'Order ahead', payload: 'ORDER_AHEAD' },
          { type: 'url', title: 'Opening hours', payload: 'https://cornercafe.example/hours' },
          {
            type: 'menu',
            title: 'Menu',
            items: [
              { type: 'postback', title: 'Coffee', payload: 'MENU_COFFEE' },
              { type: 'postback', title: 'Pastries', payload: 'MENU_PASTRIES' },
            ],
          },
        ],
      },
    ],
    domains_whitelist: ['https://cornercafe.example'],
  });

  // A day of traffic, two hours a step: customers write to the page and are answered, order
  // updates go out by SMS and some customers reply; the order system is down for a few hours.
  const customers: { name: [string, string]; psid?: string; contactId?: string }[] = [
    { name: ['Jana', 'Nováková'] },
    { name: ['Petr', 'Svoboda'] },
    { name: ['Eva', 'Dvořáková'] },
    { name: ['Lukáš', 'Černý'] },
  ];
  const questions = [
    'Are you open on Sunday?',
    'Do you have oat milk?',
    'Can I order a cake for Saturday?',
    'Is there parking nearby?',
    'Thanks, see you later!',
  ];
  const answers = [
    'Yes, 9 to 17 on Sundays.',
    'We do, and almond milk too.',
    'Of course! Which size would you like?',
    'Free parking right behind the café.',
    'See you soon!',
  ];
  let step = 0;
  for (let hoursAgo = 22; hoursAgo >= 0; hoursAgo -= 2, step++) {
    clock.offset = -hoursAgo * HOUR;
    receiver.down = hoursAgo <= 8 && hoursAgo >= 6;
    const customer = customers[step % customers.length]!;
    if (!customer.psid) {
      const user = await sn_(`/pages/${pageId}/users`, { first_name: customer.name[0], last_name: customer.name[1] });
      assert.equal(user.status, 201, user.text);
      customer.psid = user.body.user.psid;
    }
    const wrote = await sn_(`/pages/${pageId}/users/${customer.psid}/messages`, { text: questions[step % questions.length] });
    assert.equal(wrote.status, 200, wrote.text);
    if (!customer.contactId) {
      // The customer who just wrote for the first time is the channel's newest contact.
      const contacts = await api.get(`/v1/channels/${channels.page}/contacts?max=1`);
      customer.contactId = (contacts.body as { id: string }[])[0]?.id;
    }
    if (customer.contactId) {
      const reply = await api.post('/v1/messages', {
        channel: { id: channels.page },
        contact: { id: customer.contactId },
        content: { type: 'text', payload: answers[step % answers.length] },
      });
      assert.equal(reply.status, 201, reply.text);
    }
    if (step % 4 === 1) {
      // Someone finds the café's bot and presses Start; the bot welcomes them.
      const botUser = await http('POST', `${bmBase}/_sandbox/bots/${bot.body.bot.id}/users`, { first_name: customer.name[0], last_name: customer.name[1] });
      assert.equal(botUser.status, 201, botUser.text);
      await http('POST', `${bmBase}/_sandbox/bots/${bot.body.bot.id}/users/${botUser.body.user.id}/start`, {});
      const botContact = ((await api.get(`/v1/channels/${channels.bot}/contacts?max=1`)).body as { id: string }[])[0];
      if (botContact) {
        await api.post('/v1/messages', {
          channel: { id: channels.bot },
          contact: { id: botContact.id },
          content: { type: 'text', payload: 'Welcome to Corner Café! Send your order and we will have it ready.' },
        });
      }
    }
    const orders = 2 + (step % 3);
    for (let i = 0; i < orders; i++) {
      const number = `+42060211${String(step * 10 + i).padStart(4, '0')}`;
      const sent = await api.post('/v1/messages', {
        channel: { id: channels.sms },
        contact: { phone_number: number },
        content: { type: 'text', payload: `Your order #${1040 + step * 5 + i} is ready for pick-up. Reply STOP to opt out.` },
      });
      assert.equal(sent.status, 201, sent.text);
      if (i === 0 && step % 2 === 0) await smsControl('/inbound', { originator: number, recipient: SMS_NUMBER, body: 'Thanks, on my way!' });
    }
    await settle(api, [channels.page, channels.sms]);
  }
  receiver.down = false;

  // The latest conversation: a question answered with quick replies, the way the café asks for a pick-up time.
  const jana = customers[0]!;
  await sn_(`/pages/${pageId}/users/${jana.psid}/messages`, { text: 'Can I pick up two flat whites in 15 minutes?' });
  await api.post('/v1/messages', {
    channel: { id: channels.page },
    contact: { id: jana.contactId },
    content: {
      type: 'text',
      payload: 'Sure! Which pick-up time suits you?',
      quick_replies: [
        { type: 'text', title: '8:15', payload: 'PICKUP_0815' },
        { type: 'text', title: '8:30', payload: 'PICKUP_0830' },
        { type: 'text', title: '8:45', payload: 'PICKUP_0845' },
      ],
    },
  });
  await settle(api, [channels.page, channels.sms]);

  // The RCS agent: registered by the service, verified by the platform, ready to be launched.
  await api.patch(`/v1/channels/${channels.rbm}`, { rbm: { agent_state: 'create_requested' } });
  const agentId = await until(async () => {
    const got = await api.get(`/v1/channels/${channels.rbm}`);
    return typeof got.body.rbm.agent_id === 'string' ? (got.body.rbm.agent_id as string) : undefined;
  });
  await http('POST', `${rbmBase}/_sandbox/agents/${encodeURIComponent(agentId)}/verification`, { state: 'VERIFICATION_STATE_VERIFIED' });
  await api.get(`/v1/channels/${channels.rbm}?refresh=true`);

  return {
    server,
    origin: server.origin,
    owner,
    member,
    setupLink: barista.setupLink ?? '',
    channels,
    async close() {
      await server.close();
      await Promise.allSettled([sn.close(), bm.close(), sms.close(), rbmStandIn.close(), appmsgStandIn.close(), mailStandIn.close(), receiver.close()]);
    },
  };
}

/** Polls `check` until it gives a value (at most 15 s). */
async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits (bounded) until the channels have no webhook delivery still pending, so each hour's outcome is recorded in it. */
async function settle(api: ApiClient, channelIds: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    let pending = 0;
    for (const id of channelIds) pending += ((await api.get(`/v1/channels/${id}/webhook/deliveries?status=pending&max=1`)).body as unknown[]).length;
    if (pending === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
