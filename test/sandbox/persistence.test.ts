import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createSign } from 'node:crypto';
import { STAND_INS } from '../../sandbox/registry.js';
import type { StandIn } from '../../sandbox/shared/standin.js';
import { at, call, get, post } from './helpers/http.js';

// Each stand-in's accounts survive a restart: what one instance handed out keeps working on a new
// instance restored from the first one's snapshot (written to JSON and read back, as the state
// file does). Traffic is not kept.

type Make = () => StandIn<unknown>;

function factory(platform: string): Make {
  const entry = STAND_INS.find((e) => e.platform === platform);
  assert.ok(entry, platform);
  return () => entry.create().standIn;
}

/** Runs `before` on a first instance, then `after` on a second one restored from its snapshot. */
async function acrossRestart<T>(
  t: TestContext,
  platform: string,
  before: (base: string) => Promise<T>,
  after: (base: string, kept: T) => Promise<void>,
): Promise<void> {
  const make = factory(platform);
  const first = make();
  t.after(() => first.close());
  const kept = await before(await first.listen(0));
  const saved = JSON.parse(JSON.stringify(first.snapshot())) as unknown;
  await first.close();
  const second = make();
  t.after(() => second.close());
  second.restore(saved);
  await after(await second.listen(0), kept);
}

test('socialnet_chat: the app, pages, their tokens and users survive; profile pictures are served again', async (t) => {
  await acrossRestart(
    t,
    'socialnet_chat',
    async (base) => {
      const app = (await get(`${base}/_sandbox/app`)).body;
      const page = await post(`${base}/_sandbox/pages`, { name: 'Coffee Shop', category: 'Cafe' });
      assert.equal(page.status, 201);
      const pageId = String(at(page.body, 'page', 'id'));
      const user = await post(`${base}/_sandbox/pages/${pageId}/users`, { first_name: 'Jana' });
      assert.equal(user.status, 201);
      // Traffic, which is not kept.
      await post(`${base}/_sandbox/pages/${pageId}/users/${String(at(user.body, 'user', 'psid'))}/messages`, { text: 'hello' });
      return { app, pageId, pageToken: String(page.body.access_token), psid: String(at(user.body, 'user', 'psid')) };
    },
    async (base, kept) => {
      const app = (await get(`${base}/_sandbox/app`)).body;
      assert.equal(app.id, kept.app.id);
      assert.equal(app.secret, kept.app.secret);
      const me = await get(`${base}/v25.0/me?access_token=${kept.pageToken}`);
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.deepEqual(me.body, { name: 'Coffee Shop', id: kept.pageId });
      const profile = await get(`${base}/v25.0/${kept.psid}?fields=first_name,profile_pic&access_token=${kept.pageToken}`);
      assert.equal(profile.body.first_name, 'Jana');
      const picture = await fetch(String(profile.body.profile_pic));
      assert.equal(picture.status, 200);
      assert.equal(picture.headers.get('content-type'), 'image/png');
      assert.deepEqual(at((await get(`${base}/_sandbox/pages/${kept.pageId}/messages`)).body, 'messages'), []);
    },
  );
});

test('botmsg: bots keep their tokens and the webhook the service registered', async (t) => {
  await acrossRestart(
    t,
    'botmsg',
    async (base) => {
      const bot = await post(`${base}/_sandbox/bots`, { username: 'coffee_bot', first_name: 'Coffee' });
      assert.equal(bot.status, 201);
      const token = String(bot.body.token);
      const hook = await post(`${base}/bot${token}/setWebhook`, { url: 'http://127.0.0.1:1/inbound/1/updates', secret_token: 'secret-of-the-service' });
      assert.equal(at(hook.body, 'ok'), true, JSON.stringify(hook.body));
      return token;
    },
    async (base, token) => {
      const me = await get(`${base}/bot${token}/getMe`);
      assert.equal(at(me.body, 'result', 'username'), 'coffee_bot');
      const info = await get(`${base}/bot${token}/getWebhookInfo`);
      assert.equal(at(info.body, 'result', 'url'), 'http://127.0.0.1:1/inbound/1/updates');
    },
  );
});

test('smsprovider: the access key, signing key and numbers survive', async (t) => {
  await acrossRestart(
    t,
    'smsprovider',
    async (base) => {
      await call('PUT', `${base}/_sandbox/numbers/+18005551212`, { receive_url: 'http://127.0.0.1:1/inbound' });
      return (await get(`${base}/_sandbox/account`)).body;
    },
    async (base, account) => {
      assert.deepEqual((await get(`${base}/_sandbox/account`)).body, account);
      const key = String(at(account, 'access_keys', 0, 'key'));
      const balance = await get(`${base}/balance`, { authorization: `AccessKey ${key}` });
      assert.equal(balance.status, 200, JSON.stringify(balance.body));
    },
  );
});

test('appmsg: bots keep their tokens', async (t) => {
  await acrossRestart(
    t,
    'appmsg',
    async (base) => {
      const bot = await post(`${base}/_sandbox/bots`, { name: 'Coffee Shop' });
      assert.equal(bot.status, 201);
      return String(bot.body.token);
    },
    async (base, token) => {
      const info = await post(`${base}/pa/get_account_info`, {}, { 'x-appmsg-auth-token': token });
      assert.equal(info.body.status, 0, JSON.stringify(info.body));
      assert.equal(info.body.name, 'Coffee Shop');
    },
  );
});

test('rbm: agents keep their service-account keys and access tokens, phones stay', async (t) => {
  const phone = '+420601123456';
  await acrossRestart(
    t,
    'rbm',
    async (base) => {
      const agent = await post(`${base}/_sandbox/agents`, { display_name: 'Coffee', launched_carriers: ['sandbox-carrier'] });
      assert.equal(agent.status, 201);
      await post(`${base}/_sandbox/phones`, { phone_number: phone });
      return {
        agentId: String(at(agent.body, 'agent', 'id')),
        token: String(agent.body.access_token),
        key: at(agent.body, 'service_account_key') as Record<string, string>,
      };
    },
    async (base, kept) => {
      const caps = await get(`${base}/v1/phones/${encodeURIComponent(phone)}/capabilities?requestId=r1&agentId=${kept.agentId}`, {
        authorization: `Bearer ${kept.token}`,
      });
      assert.equal(caps.status, 200, JSON.stringify(caps.body));
      // The key handed out before the restart still signs valid assertions (its public half was kept).
      const now = Math.floor(Date.now() / 1000);
      const h = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: kept.key.private_key_id })).toString('base64url');
      const uri = `${base}/token`;
      const p = Buffer.from(JSON.stringify({ iss: kept.key.client_email, scope: 'rbm.messaging', aud: uri, iat: now, exp: now + 3600 })).toString('base64url');
      const sig = createSign('RSA-SHA256').update(`${h}.${p}`).sign(String(kept.key.private_key)).toString('base64url');
      const res = await fetch(uri, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${h}.${p}.${sig}` }),
      });
      assert.equal(res.status, 200, await res.text());
    },
  );
});

test('mailprovider: API keys, the signing key and domains survive', async (t) => {
  await acrossRestart(
    t,
    'mailprovider',
    async (base) => {
      await post(`${base}/_sandbox/domains`, { name: 'mg.coffee.test' });
      return (await get(`${base}/_sandbox/account`)).body;
    },
    async (base, account) => {
      assert.deepEqual((await get(`${base}/_sandbox/account`)).body, account);
      const auth = { authorization: `Basic ${Buffer.from(`api:${String(at(account, 'api_keys', 0))}`).toString('base64')}` };
      const hooks = await get(`${base}/v3/domains/mg.coffee.test/webhooks`, auth);
      assert.equal(hooks.status, 200, JSON.stringify(hooks.body));
    },
  );
});

test('appmsg_business_messages: services and users survive', async (t) => {
  await acrossRestart(
    t,
    'appmsg_business_messages',
    async (base) => {
      const service = await post(`${base}/_sandbox/services`, { service_id: 4321, callback_url: 'http://127.0.0.1:1/cb' });
      assert.equal(service.status, 201, JSON.stringify(service.body));
      assert.equal((await post(`${base}/_sandbox/users`, { phone: '+420601123456', blocked_services: [4321] })).status, 201);
      return (await get(`${base}/_sandbox/state`)).body;
    },
    async (base, state) => {
      assert.deepEqual((await get(`${base}/_sandbox/state`)).body, state);
    },
  );
});

test('a snapshot that is not an object is refused', () => {
  const standIn = factory('botmsg')();
  assert.throws(() => standIn.restore([1, 2]), /must be a JSON object/);
});
