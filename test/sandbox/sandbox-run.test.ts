import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAND_INS } from '../../sandbox/registry.js';
import { loadSettings } from '../../src/config.js';
import { CONNECTOR_SETTINGS } from '../../src/connectors/registry-defaults.js';
import { startTestServer } from '../helpers/runtime.js';
import { startWebhookReceiver } from '../helpers/webhooks.js';
import { at, call, get, post } from './helpers/http.js';
import { freePortBase, startSandbox, type SandboxProcess } from './helpers/sandbox-process.js';

// `npm run sandbox` (sandbox/main.ts) as a process: moved with SANDBOX_PORT_BASE, its accounts kept
// in the data folder, and a server pointed at it by that one setting. The sandbox part does not
// depend on the database, so the server runs on SQLite only.

function dataDir(): string {
  return mkdtempSync(join(tmpdir(), 'parley-sandbox-'));
}

test('a sandbox started twice on one data folder has the same credentials and accounts', async (t) => {
  const dir = dataDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const base = await freePortBase();
  const env = { SANDBOX_PORT_BASE: String(base), DATA_DIR: dir };
  const url = (platform: string) => `http://127.0.0.1:${base + STAND_INS.find((e) => e.platform === platform)!.portOffset}`;

  const first = await startSandbox(env);
  let kept: { app: unknown; sms: unknown; mail: unknown; nluModel: unknown; pageId: string; pageToken: string; botToken: string };
  try {
    const model = await call('PUT', `${url('nluserver')}/_sandbox/model`, { intents: [{ name: 'greet', examples: ['hello'] }] });
    assert.equal(model.status, 200, JSON.stringify(model.body));
    await call('PUT', `${url('nluserver')}/_sandbox/token`, { token: 'nlu-token' });
    const page = await post(`${url('socialnet_chat')}/_sandbox/pages`, { name: 'Coffee Shop' });
    const bot = await post(`${url('botmsg')}/_sandbox/bots`, { username: 'coffee_bot' });
    kept = {
      app: (await get(`${url('socialnet_chat')}/_sandbox/app`)).body,
      sms: (await get(`${url('smsprovider')}/_sandbox/account`)).body,
      mail: (await get(`${url('mailprovider')}/_sandbox/account`)).body,
      nluModel: model.body.model,
      pageId: String(at(page.body, 'page', 'id')),
      pageToken: String(page.body.access_token),
      botToken: String(bot.body.token),
    };
  } finally {
    assert.equal(await first.stop(), 0, first.output());
  }
  const file = join(dir, 'sandbox', 'state.json');
  assert.ok(existsSync(file), 'the accounts are kept in $DATA_DIR/sandbox/state.json');
  assert.equal(statSync(file).mode & 0o077, 0, 'the file with credentials is readable by its owner only');

  const second = await startSandbox(env);
  try {
    assert.match(second.output(), /Accounts restored from .*state\.json/);
    assert.deepEqual(second.settings, first.settings, 'the server settings printed are the same');
    assert.equal(second.settings.SANDBOX_PORT_BASE, String(base));
    assert.deepEqual((await get(`${url('socialnet_chat')}/_sandbox/app`)).body, kept.app);
    assert.deepEqual((await get(`${url('smsprovider')}/_sandbox/account`)).body, kept.sms);
    assert.deepEqual((await get(`${url('mailprovider')}/_sandbox/account`)).body, kept.mail);
    const me = await get(`${url('socialnet_chat')}/v25.0/me?access_token=${kept.pageToken}`);
    assert.equal(me.body.id, kept.pageId, JSON.stringify(me.body));
    const getMe = await get(`${url('botmsg')}/bot${kept.botToken}/getMe`);
    assert.equal(at(getMe.body, 'result', 'username'), 'coffee_bot');
    assert.deepEqual((await get(`${url('nluserver')}/_sandbox/model`)).body.model, kept.nluModel);
    const parsed = await post(`${url('nluserver')}/model/parse?token=nlu-token`, { text: 'hello' });
    assert.equal(at(parsed.body, 'intent', 'name'), 'greet', JSON.stringify(parsed.body));
  } finally {
    assert.equal(await second.stop(), 0, second.output());
  }
});

test('SANDBOX_PORT_BASE alone points the server at every moved stand-in; its channels keep working across a sandbox restart', async (t) => {
  const dir = dataDir();
  const base = await freePortBase();
  const env = { SANDBOX_PORT_BASE: String(base), DATA_DIR: dir };
  let sandbox: SandboxProcess | undefined;
  // The sandbox stops (writing its state file) before its folder goes.
  t.after(async () => {
    await sandbox?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  sandbox = await startSandbox(env);

  // The server gets exactly what the sandbox printed: the port base, the app it runs as, and the
  // NLU stand-in's address let through the guard of NLP calls (its URL is given per channel).
  assert.deepEqual(Object.keys(sandbox.settings).sort(), [
    'NLP_ALLOWLIST',
    'SANDBOX_PORT_BASE',
    'SANDBOX_URL',
    'SOCIALNET_APP_ID',
    'SOCIALNET_APP_SECRET',
    'SOCIALNET_VERIFY_TOKEN',
  ]);
  const nlu = STAND_INS.find((e) => e.platform === 'nluserver')!;
  assert.equal(sandbox.settings.NLP_ALLOWLIST, `127.0.0.1:${base + nlu.portOffset}`);
  assert.equal(sandbox.settings.SANDBOX_URL, `http://127.0.0.1:${base}`, 'the local trial of the administration app is on with these settings');
  assert.match(
    sandbox.output(),
    new RegExp(`nluserver: give http://127\\.0\\.0\\.1:${base + nlu.portOffset} as the url of a channel's external NLP integration`),
  );
  const s = await startTestServer('sqlite', { workers: true, env: sandbox.settings });
  t.after(() => s.close());
  const p = loadSettings(s.runtime.config, CONNECTOR_SETTINGS);
  const urls = [p.socialnet_chat, p.botmsg, p.mobile, p.appmsg, p.rbm, p.email, p.appmsg_business_messages].map((platform) => platform.apiUrl);
  const reached = await Promise.all(urls.map(async (u) => (await get(`${u}/_sandbox`)).body.platform));
  assert.deepEqual(
    reached,
    STAND_INS.filter((e) => e.urlVariable !== undefined).map((e) => e.platform),
  );

  // Channels whose credentials are checked with the platforms when they are made.
  const sn = p.socialnet_chat.apiUrl;
  const bm = p.botmsg.apiUrl;
  const page = await post(`${sn}/_sandbox/pages`, { name: 'Coffee Shop', category: 'Cafe' });
  const pageId = String(at(page.body, 'page', 'id'));
  const pageHook = await startWebhookReceiver();
  t.after(() => pageHook.close());
  const pageChannel = await s.api.post('/v1/channels', {
    type: 'socialnet_chat',
    name: 'Coffee Shop',
    webhook: { url: pageHook.url },
    socialnet_page: { id: pageId, access_token: String(at(page.body, 'admin', 'user_access_token')) },
  });
  assert.equal(pageChannel.status, 201, pageChannel.text);
  pageHook.secret = pageChannel.body.webhook.secret;

  const bot = await post(`${bm}/_sandbox/bots`, { username: 'coffee_bot', first_name: 'Coffee' });
  const botId = String(at(bot.body, 'bot', 'id'));
  const botHook = await startWebhookReceiver();
  t.after(() => botHook.close());
  const botChannel = await s.api.post('/v1/channels', {
    type: 'botmsg',
    name: 'Coffee bot',
    webhook: { url: botHook.url },
    botmsg: { access_token: String(bot.body.token) },
  });
  assert.equal(botChannel.status, 201, botChannel.text);
  botHook.secret = botChannel.body.webhook.secret;

  // The sandbox restarts; the server and its channels stay as they are.
  assert.equal(await sandbox.stop(), 0, sandbox.output());
  sandbox = await startSandbox(env);

  // socialnet_chat: the platform still calls the service (app subscription, signed with the kept
  // app secret), and the service still sends with the page token it was given.
  const user = await post(`${sn}/_sandbox/pages/${pageId}/users`, { first_name: 'Jana' });
  const psid = String(at(user.body, 'user', 'psid'));
  const said = await post(`${sn}/_sandbox/pages/${pageId}/users/${psid}/messages`, { text: 'Do you deliver?' });
  assert.equal(at(said.body, 'webhook', 'status'), 200, JSON.stringify(said.body));
  const received = await pageHook.waitFor('message_received', (e) => e.data.content.payload === 'Do you deliver?');
  assert.ok(received.signatureValid);
  const reply = await s.api.post('/v1/messages', {
    channel: { id: pageChannel.body.id },
    contact: { id: received.data.contact.id },
    content: { type: 'text', payload: 'Yes' },
  });
  assert.equal(reply.status, 201, reply.text);

  // botmsg: the webhook the service registered and the bot token are still there.
  const botUser = await post(`${bm}/_sandbox/bots/${botId}/users`, { first_name: 'Jana' });
  const userId = Number(at(botUser.body, 'user', 'id'));
  const started = await post(`${bm}/_sandbox/bots/${botId}/users/${userId}/start`, {});
  assert.equal(at(started.body, 'webhook', 'status'), 200, JSON.stringify(started.body));
  const start = await botHook.waitFor('message_received', (e) => e.data.content.payload === '/start');
  const answer = await s.api.post('/v1/messages', {
    channel: { id: botChannel.body.id },
    contact: { id: start.data.contact.id },
    content: { type: 'text', payload: 'Welcome' },
  });
  assert.equal(answer.status, 201, answer.text);
  const sent = (await get(`${bm}/_sandbox/bots/${botId}/messages?chat_id=${userId}`)).body.messages as Array<{ message: { text?: string } }>;
  assert.equal(sent.at(-1)?.message.text, 'Welcome');
});
