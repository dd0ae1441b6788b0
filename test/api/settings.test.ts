import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { ConnectorRegistry, type Connector } from '../../src/connectors/connector.js';

/** Stands in for the platform side of socialnet_chat settings: records pushes, fails on request. */
function fakePlatform() {
  const pushes: Array<{ settings: Record<string, unknown>; changed: readonly string[] }> = [];
  let answer: 'ok' | 'rate_limited' | 'refused' = 'ok';
  const connector: Connector = {
    type: 'socialnet_chat',
    roles: {
      verifier: {
        async verifyChannel() {
          return { ok: true, value: { config: { name: 'Shop page', category: 'Shop' }, secrets: {} } };
        },
      },
      settings: {
        async pushSettings(_channel, settings, changed) {
          if (answer === 'rate_limited') return { ok: false, retryable: true, code: 'rate_limited', message: 'too many calls' };
          if (answer === 'refused') return { ok: false, retryable: false, code: '100', message: 'Invalid menu' };
          pushes.push({ settings, changed });
          return { ok: true, value: null };
        },
      },
    },
  };
  return { connector, pushes, answer: (a: typeof answer) => void (answer = a) };
}

const SOCIAL = { type: 'socialnet_chat', name: 'Page', socialnet_page: { id: '1234', access_token: 'page-token' } };
const item = (n: number) => ({ type: 'postback', title: `Item ${n}`, payload: `P${n}` });

for (const { dialect, skip } of await dialects()) {
  describe(`Settings API (${dialect})`, { skip }, () => {
    let s: TestServer;
    const platform = fakePlatform();
    before(async () => {
      s = await startTestApp(dialect, { connectors: new ConnectorRegistry().register(platform.connector) });
    });
    after(async () => s?.close());

    const chat = async () => (await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' })).body.id as string;

    test('service_chat: every setting shown, null by default; a value sets, null deletes', async () => {
      const id = await chat();
      const path = `/v1/channels/${id}/settings`;
      const initial = await s.api.get(path);
      assert.equal(initial.status, 200);
      assert.deepEqual(initial.body, { domains_whitelist: null });

      const list = ['https://shop.example.com', 'http://localhost:8080', 'http://127.0.0.1:5173', 'https://[::1]:8443'];
      const set = await s.api.patch(path, { domains_whitelist: list });
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body, { domains_whitelist: list });
      assert.deepEqual((await s.api.get(path)).body, { domains_whitelist: list });

      const untouched = await s.api.patch(path, {});
      assert.deepEqual(untouched.body, { domains_whitelist: list });
      const empty = await s.api.patch(path, { domains_whitelist: [] });
      assert.deepEqual(empty.body, { domains_whitelist: [] });
      const removed = await s.api.patch(path, { domains_whitelist: null });
      assert.deepEqual(removed.body, { domains_whitelist: null });
      assert.deepEqual((await s.api.get(path)).body, { domains_whitelist: null });
    });

    test('service_chat: whitelist entries must be origins, standard ports left out', async () => {
      const path = `/v1/channels/${await chat()}/settings`;
      const bad: Array<[unknown, string]> = [
        ['shop.example.com', 'domains_whitelist[0]'],
        ['https://shop.example.com/path', 'domains_whitelist[0]'],
        ['https://shop.example.com/', 'domains_whitelist[0]'],
        ['ftp://shop.example.com', 'domains_whitelist[0]'],
        ['https://shop.example.com:443', 'domains_whitelist[0]'],
        ['http://shop.example.com:80', 'domains_whitelist[0]'],
        ['http://localhost:70000', 'domains_whitelist[0]'],
        ['https://user@shop.example.com', 'domains_whitelist[0]'],
        [42, 'domains_whitelist[0]'],
      ];
      for (const [entry, field] of bad) {
        const res = await s.api.patch(path, { domains_whitelist: [entry] });
        assert.equal(res.status, 422, `${String(entry)}: ${res.text}`);
        assert.equal(res.body.errors[0].field, field);
        assert.equal(res.body.errors[0].rejected_value, entry);
      }
      const notArray = await s.api.patch(path, { domains_whitelist: 'https://shop.example.com' });
      assert.equal(notArray.status, 422);
      assert.equal(notArray.body.errors[0].field, 'domains_whitelist');
      // A standard port is fine when it is not the protocol's own.
      assert.equal((await s.api.patch(path, { domains_whitelist: ['http://shop.example.com:443', 'https://shop.example.com:80'] })).status, 200);
      // 100 entries pass, 101 fail.
      const many = Array.from({ length: 101 }, (_, i) => `https://s${i}.example.com`);
      assert.equal((await s.api.patch(path, { domains_whitelist: many.slice(0, 100) })).status, 200);
      assert.equal((await s.api.patch(path, { domains_whitelist: many })).status, 422);
      // Nothing was stored by the refused requests.
      assert.equal((await s.api.get(path)).body.domains_whitelist.length, 100);
    });

    test('service_chat: settings of other types are not supported', async () => {
      const path = `/v1/channels/${await chat()}/settings`;
      const res = await s.api.patch(path, { menu: [{ locale: 'default', items: [item(1)] }] });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.errors[0], {
        message: "Property 'menu' is not supported.",
        field: 'menu',
        rejected_value: [{ locale: 'default', items: [item(1)] }],
      });
    });

    test('types without settings: {} and any key 422', async () => {
      const { body } = await s.api.post('/v1/channels', { type: 'appmsg', name: 'A', appmsg: { access_token: 't' } });
      const path = `/v1/channels/${body.id}/settings`;
      const got = await s.api.get(path);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, {});
      assert.deepEqual((await s.api.patch(path, {})).body, {});
      const res = await s.api.patch(path, { domains_whitelist: ['https://a.example.com'] });
      assert.equal(res.status, 422);
      assert.equal(res.body.errors[0].message, "Property 'domains_whitelist' is not supported.");
      const nul = await s.api.patch(path, { anything: null });
      assert.equal(nul.status, 422);
      assert.equal(nul.body.errors[0].field, 'anything');
    });

    test('unknown, foreign and malformed channel ids answer 404; no token 401; bad body 400', async () => {
      assert.equal((await s.api.get('/v1/channels/999999999/settings')).status, 404);
      assert.equal((await s.api.get('/v1/channels/abc/settings')).status, 404);
      const id = await chat();
      const other = await s.newAccount();
      assert.equal((await other.api.get(`/v1/channels/${id}/settings`)).status, 404);
      assert.equal((await other.api.patch(`/v1/channels/${id}/settings`, { domains_whitelist: null })).status, 404);
      const anonymous = await s.client(null).get(`/v1/channels/${id}/settings`);
      assert.equal(anonymous.status, 401);
      assert.equal((await s.api.patch(`/v1/channels/${id}/settings`, '[1]')).status, 400);
      assert.equal((await s.api.patch(`/v1/channels/${id}/settings`, '{nope')).status, 400);
      assert.equal((await s.api.delete(`/v1/channels/${id}/settings`)).status, 405);
    });

    test('socialnet_chat: all four settings, pushed to the platform before they are stored', async () => {
      const { body } = await s.api.post('/v1/channels', SOCIAL);
      const path = `/v1/channels/${body.id}/settings`;
      assert.deepEqual((await s.api.get(path)).body, { get_started_button: null, menu: null, user_inputs: null, domains_whitelist: null });
      const before = platform.pushes.length;
      const value = {
        get_started_button: { payload: 'GET_STARTED' },
        menu: [
          {
            locale: 'default',
            items: [
              item(1),
              { type: 'url', title: 'Shop', payload: 'https://shop.example.com' },
              { type: 'menu', title: 'More', items: [item(2), { type: 'menu', title: 'Deeper', items: [item(3)] }] },
            ],
          },
          { locale: 'cs_CZ', items: [item(4)] },
        ],
        user_inputs: [{ locale: 'default', enabled: false }],
        domains_whitelist: ['https://shop.example.com'],
      };
      const res = await s.api.patch(path, value);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, value);
      assert.equal(platform.pushes.length, before + 1);
      assert.deepEqual(platform.pushes.at(-1)?.settings, value);
      assert.deepEqual([...(platform.pushes.at(-1)?.changed ?? [])].sort(), ['domains_whitelist', 'get_started_button', 'menu', 'user_inputs']);
      assert.deepEqual((await s.api.get(path)).body, value);

      const partial = await s.api.patch(path, { domains_whitelist: null });
      assert.deepEqual(partial.body, { ...value, domains_whitelist: null });
      assert.deepEqual(platform.pushes.at(-1)?.changed, ['domains_whitelist']);
    });

    test('socialnet_chat: menu rules (3 items, 3 levels, title 30, default locale, needs get_started_button)', async () => {
      const { body } = await s.api.post('/v1/channels', SOCIAL);
      const path = `/v1/channels/${body.id}/settings`;
      const gsb = { payload: 'GO' };
      const menu = (items: unknown[], locale = 'default') => [{ locale, items }];
      const cases: Array<[unknown, string]> = [
        [menu([item(1), item(2), item(3), item(4)]), 'menu[0].items'],
        [menu([{ type: 'postback', title: 't'.repeat(31), payload: 'x' }]), 'menu[0].items[0].title'],
        [menu([{ type: 'phone', title: 'Call', payload: 'x' }]), 'menu[0].items[0].type'],
        [menu([{ title: 'No type', payload: 'x' }]), 'menu[0].items[0].type'],
        [menu([{ type: 'postback', title: 'No payload' }]), 'menu[0].items[0].payload'],
        [menu([{ type: 'postback', title: 'Long', payload: 'p'.repeat(1001) }]), 'menu[0].items[0].payload'],
        [menu([{ type: 'url', title: 'Bad url', payload: 'not a url' }]), 'menu[0].items[0].payload'],
        [menu([{ type: 'postback', title: 'Extra', payload: 'x', url: 'y' }]), 'menu[0].items[0].url'],
        [
          menu([{ type: 'menu', title: 'L1', items: [{ type: 'menu', title: 'L2', items: [{ type: 'menu', title: 'L3', items: [item(1)] }] }] }]),
          'menu[0].items[0].items[0].items[0].type',
        ],
        [menu([{ type: 'menu', title: 'Four', items: [item(1), item(2), item(3), item(4)] }]), 'menu[0].items[0].items'],
        [menu([item(1)], 'en_US'), 'menu'],
        [[...menu([item(1)]), ...menu([item(2)])], 'menu[1].locale'],
        [menu([item(1)], 'English'), 'menu[0].locale'],
        [menu([]), 'menu[0].items'],
      ];
      for (const [value, field] of cases) {
        const res = await s.api.patch(path, { get_started_button: gsb, menu: value });
        assert.equal(res.status, 422, `${field}: ${res.text}`);
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body.errors[0]));
      }
      assert.equal(
        (await s.api.patch(path, { get_started_button: gsb, menu: menu([{ type: 'postback', title: 't'.repeat(30), payload: 'p'.repeat(1000) }]) })).status,
        200,
      );

      const noButton = await s.api.patch(`/v1/channels/${(await s.api.post('/v1/channels', SOCIAL)).body.id}/settings`, { menu: menu([item(1)]) });
      assert.equal(noButton.status, 422);
      assert.equal(noButton.body.errors[0].field, 'menu');
      assert.match(noButton.body.errors[0].message, /requires get_started_button/);
      const dropButton = await s.api.patch(path, { get_started_button: null });
      assert.equal(dropButton.status, 422);
      assert.equal(dropButton.body.errors[0].field, 'get_started_button');
      // Both removed together is fine.
      assert.equal((await s.api.patch(path, { get_started_button: null, menu: null })).status, 200);
    });

    test('socialnet_chat: user_inputs need a default entry; disabling needs a menu', async () => {
      const { body } = await s.api.post('/v1/channels', SOCIAL);
      const path = `/v1/channels/${body.id}/settings`;
      const noDefault = await s.api.patch(path, { user_inputs: [{ locale: 'en_US', enabled: true }] });
      assert.equal(noDefault.status, 422);
      assert.equal(noDefault.body.errors[0].field, 'user_inputs');
      const disabled = await s.api.patch(path, { user_inputs: [{ locale: 'default', enabled: false }] });
      assert.equal(disabled.status, 422);
      assert.match(disabled.body.errors[0].message, /requires a menu/);
      const notBool = await s.api.patch(path, { user_inputs: [{ locale: 'default', enabled: 'no' }] });
      assert.equal(notBool.body.errors[0].field, 'user_inputs[0].enabled');
      assert.equal((await s.api.patch(path, { user_inputs: [{ locale: 'default', enabled: true }] })).status, 200);
      const withMenu = await s.api.patch(path, {
        get_started_button: { payload: 'GO' },
        menu: [{ locale: 'default', items: [item(1)] }],
        user_inputs: [{ locale: 'default', enabled: false }],
      });
      assert.equal(withMenu.status, 200, withMenu.text);
      const dropMenu = await s.api.patch(path, { menu: null });
      assert.equal(dropMenu.status, 422);
      assert.equal(dropMenu.body.errors[0].field, 'menu');
    });

    test('socialnet_chat: a platform refusal or rate limit answers 502 and stores nothing', async () => {
      const { body } = await s.api.post('/v1/channels', SOCIAL);
      const path = `/v1/channels/${body.id}/settings`;
      platform.answer('rate_limited');
      try {
        const limited = await s.api.patch(path, { get_started_button: { payload: 'GO' } });
        assert.equal(limited.status, 502);
        assert.match(limited.body.errors[0].message, /rate limit.*minutes/);
        platform.answer('refused');
        const refused = await s.api.patch(path, { get_started_button: { payload: 'GO' } });
        assert.equal(refused.status, 502);
        assert.match(refused.body.errors[0].message, /Invalid menu/);
      } finally {
        platform.answer('ok');
      }
      assert.equal((await s.api.get(path)).body.get_started_button, null);
    });
  });

  describe(`Settings without a platform connection (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      // socialnet_chat verification passes, but the connector cannot apply settings.
      const verifyOnly: Connector = {
        type: 'socialnet_chat',
        roles: { verifier: { verifyChannel: async () => ({ ok: true, value: { config: {}, secrets: {} } }) } },
      };
      s = await startTestApp(dialect, { connectors: new ConnectorRegistry().register(verifyOnly) });
    });
    after(async () => s?.close());

    test('socialnet_chat settings are never reported as applied when they were not', async () => {
      const { body } = await s.api.post('/v1/channels', SOCIAL);
      const path = `/v1/channels/${body.id}/settings`;
      const res = await s.api.patch(path, { get_started_button: { payload: 'GO' } });
      assert.equal(res.status, 502);
      assert.equal((await s.api.get(path)).body.get_started_button, null);
      // Validation still answers first.
      assert.equal((await s.api.patch(path, { get_started_button: { payload: '' } })).status, 422);
    });
  });
}
