import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { ConnectorRegistry, type Connector } from '../../src/connectors/connector.js';

/** A minimal body for every type, as a client would send it. */
const BODIES: Record<string, Record<string, unknown>> = {
  service_chat: { type: 'service_chat', name: 'Web chat' },
  socialnet_chat: { type: 'socialnet_chat', name: 'Page', socialnet_page: { id: '1234', access_token: 'page-token-1' } },
  mobile: {
    type: 'mobile',
    name: 'SMS',
    mode: 'test',
    provider: { type: 'smsprovider', sender_id: '+420601000111', access_token: 'sms-token', signing_key: 'sms-signing' },
  },
  rbm: { type: 'rbm', name: 'RCS', region: 'europe', rbm: { agent_name: 'Shop agent' } },
  appmsg: { type: 'appmsg', name: 'App messenger', appmsg: { access_token: 'appmsg-token' } },
  appmsg_business_messages: { type: 'appmsg_business_messages', name: 'Business', mode: 'shared', appmsg_business_messages: { sender_id: '5678' } },
  botmsg: { type: 'botmsg', name: 'Bot', botmsg: { access_token: '123:bot-token' } },
  email: { type: 'email', name: 'Mail', provider: { type: 'mailprovider', access_token: 'mail-key', sender: { email: 'shop@example.com', name: 'Shop' } } },
};

/** Stands in for the platform checks that connectors make before a channel is saved. */
const verifying: Connector = {
  type: 'botmsg',
  roles: {
    verifier: {
      async verifyChannel(input) {
        if (input.secrets.access_token === 'down') return { ok: false, retryable: true, code: '503', message: 'unavailable' };
        if (input.secrets.access_token === 'refused')
          return { ok: false, retryable: false, code: '401', message: 'Unauthorized', field: 'botmsg.access_token' };
        return { ok: true, value: { config: { name: 'Shop bot', username: 'shop_bot' }, secrets: {} } };
      },
    },
  },
};

for (const { dialect, skip } of await dialects()) {
  describe(`Channels API (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestApp(dialect, { connectors: new ConnectorRegistry().register(verifying) });
    });
    after(async () => s?.close());

    test('create answers 201 with Location and the service_chat body exactly', async () => {
      const res = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat', webhook: { url: 'https://example.com/hook' } });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('location'), `${s.baseUrl}/channels/${res.body.id}`);
      assert.deepEqual(Object.keys(res.body).sort(), ['id', 'mode', 'name', 'type', 'webhook']);
      assert.match(res.body.id, /^[1-9][0-9]*$/);
      assert.ok(Number(res.body.id) < 2 ** 53);
      assert.equal(res.body.mode, 'production');
      assert.match(res.body.webhook.id, /^[1-9][0-9]*$/);
      assert.match(res.body.webhook.secret, /^[A-Za-z0-9]{30}$/);
      assert.equal(res.body.webhook.ssl_verification, true);
      const got = await s.api.get(`/v1/channels/${res.body.id}`);
      assert.deepEqual(got.body, res.body);
    });

    test('every type can be created, read, listed, updated and deleted', async () => {
      const { api } = await s.newAccount();
      for (const [type, body] of Object.entries(BODIES)) {
        const created = await api.post('/v1/channels', body);
        assert.equal(created.status, 201, `${type}: ${created.text}`);
        assert.equal(created.body.type, type);
        assert.equal(created.body.webhook, null);
        const got = await api.get(`/v1/channels/${created.body.id}`);
        assert.equal(got.status, 200);
        const renamed = await api.patch(`/v1/channels/${created.body.id}`, { name: `${type} renamed` });
        assert.equal(renamed.status, 200, renamed.text);
        assert.equal(renamed.body.name, `${type} renamed`);
      }
      const listed = await api.get('/v1/channels?max=100');
      assert.equal(listed.headers.get('x-total-count'), String(Object.keys(BODIES).length));
      assert.deepEqual(
        listed.body.map((c: { type: string }) => c.type),
        Object.keys(BODIES),
      );
      for (const c of listed.body) {
        assert.equal((await api.delete(`/v1/channels/${c.id}`)).status, 204);
        assert.equal((await api.get(`/v1/channels/${c.id}`)).status, 404);
      }
      assert.equal((await api.get('/v1/channels')).headers.get('x-total-count'), '0');
    });

    test('type objects are shown as the specification describes', async () => {
      const mobile = await s.api.post('/v1/channels', BODIES.mobile);
      assert.deepEqual(mobile.body.provider, {
        type: 'smsprovider',
        sender_id: '+420601000111',
        access_token: 'sms-token',
        signing_key: 'sms-signing',
        status_webhook_url: `${s.baseUrl}/inbound/${mobile.body.id}/status`,
        receive_webhook_url: `${s.baseUrl}/inbound/${mobile.body.id}/receive`,
      });
      assert.equal(mobile.body.mode, 'test');
      const email = await s.api.post('/v1/channels', BODIES.email);
      assert.deepEqual(email.body.provider, {
        type: 'mailprovider',
        access_token: 'mail-key',
        sender: { email: 'shop@example.com', name: 'Shop' },
        domain: 'example.com',
        open_tracking: false,
        region: 'us',
        mail_webhook_url: `${s.baseUrl}/inbound/${email.body.id}/mail`,
        events_webhook_url: `${s.baseUrl}/inbound/${email.body.id}/events`,
      });
      const social = await s.api.post('/v1/channels', BODIES.socialnet_chat);
      assert.deepEqual(social.body.socialnet_page, { id: '1234', name: null, category: null, access_token: 'page-token-1' });
    });

    test('rbm: region is top-level in create, list and update, and rbm.region in Get', async () => {
      const created = await s.api.post('/v1/channels', BODIES.rbm);
      assert.equal(created.body.region, 'europe');
      assert.deepEqual(created.body.rbm, { agent_name: 'Shop agent', agent_state: 'new' });
      const got = await s.api.get(`/v1/channels/${created.body.id}`);
      assert.equal(got.body.region, undefined);
      assert.deepEqual(got.body.rbm, { agent_name: 'Shop agent', agent_state: 'new', region: 'europe' });
      const updated = await s.api.patch(`/v1/channels/${created.body.id}`, { region: 'asia_pacific' });
      assert.equal(updated.body.region, 'asia_pacific');
      const listed = await s.api.get('/v1/channels?max=100');
      const inList = listed.body.find((c: { id: string }) => c.id === created.body.id);
      assert.equal(inList.region, 'asia_pacific');
      assert.equal(inList.rbm.region, undefined);
    });

    test('rbm: only the client transitions of the agent state are allowed', async () => {
      const { body } = await s.api.post('/v1/channels', BODIES.rbm);
      const path = `/v1/channels/${body.id}`;
      for (const state of ['created', 'launch_requested', 'launched']) {
        const res = await s.api.patch(path, { rbm: { agent_state: state } });
        assert.equal(res.status, 422, state);
        assert.equal(res.body.errors[0].field, 'rbm.agent_state');
      }
      const requested = await s.api.patch(path, { rbm: { agent_state: 'create_requested' } });
      assert.equal(requested.status, 200);
      assert.equal(requested.body.rbm.agent_state, 'create_requested');
      const back = await s.api.patch(path, { rbm: { agent_state: 'new' } });
      assert.equal(back.status, 422);
      const unknown = await s.api.patch(path, { rbm: { agent_state: 'flying' } });
      assert.equal(unknown.status, 422);
      assert.match(unknown.body.errors[0].message, /does not match any allowed value: new, create_requested, created, launch_requested, launched/);
    });

    test('mode only where the mode table allows it', async () => {
      const cases: Array<[string, string, number]> = [
        ['mobile', 'production', 201],
        ['mobile', 'test', 201],
        ['mobile', 'shared', 422],
        ['rbm', 'test', 201],
        ['rbm', 'shared', 422],
        ['appmsg_business_messages', 'shared', 201],
        ['appmsg_business_messages', 'test', 201],
        ['service_chat', 'production', 201],
        ['service_chat', 'test', 422],
        ['socialnet_chat', 'test', 422],
        ['email', 'shared', 422],
      ];
      for (const [type, mode, status] of cases) {
        const res = await s.api.post('/v1/channels', { ...BODIES[type], mode });
        assert.equal(res.status, status, `${type} ${mode}: ${res.text}`);
        if (status === 422) {
          assert.equal(res.body.errors[0].field, 'mode');
          assert.equal(res.body.errors[0].rejected_value, mode);
          assert.match(res.body.errors[0].message, /^Property 'mode' with value '.*' does not match any allowed value: /);
        }
      }
      const mobile = await s.api.post('/v1/channels', BODIES.mobile);
      const bad = await s.api.patch(`/v1/channels/${mobile.body.id}`, { mode: 'shared' });
      assert.equal(bad.status, 422);
      const good = await s.api.patch(`/v1/channels/${mobile.body.id}`, { mode: 'production' });
      assert.equal(good.body.mode, 'production');
    });

    test('validation names fields: missing, wrong type, unknown type, nested paths', async () => {
      const missingType = await s.api.post('/v1/channels', { name: 'x' });
      assert.deepEqual(missingType.body.errors[0], { message: "Missing property 'type'.", field: 'type', rejected_value: null });
      const badType = await s.api.post('/v1/channels', { type: 'pager', name: 'x' });
      assert.equal(badType.body.errors[0].field, 'type');
      assert.match(
        badType.body.errors[0].message,
        /does not match any allowed value: service_chat, socialnet_chat, mobile, rbm, appmsg, appmsg_business_messages, botmsg, email/,
      );
      const noName = await s.api.post('/v1/channels', { type: 'service_chat' });
      assert.deepEqual(noName.body.errors[0], { message: "Missing property 'name'.", field: 'name', rejected_value: null });
      const nested = await s.api.post('/v1/channels', {
        ...BODIES.email,
        provider: { type: 'mailprovider', access_token: 'k', sender: { email: 'not-an-address', name: 'S' } },
      });
      assert.equal(nested.status, 422);
      assert.equal(nested.body.errors[0].field, 'provider.sender.email');
      const wrongProvider = await s.api.post('/v1/channels', { ...BODIES.mobile, provider: { ...(BODIES.mobile!.provider as object), type: 'mailprovider' } });
      assert.equal(wrongProvider.body.errors[0].field, 'provider.type');
      const name201 = await s.api.post('/v1/channels', { type: 'service_chat', name: 'n'.repeat(201) });
      assert.equal(name201.status, 422);
      assert.equal((await s.api.post('/v1/channels', { type: 'service_chat', name: 'n'.repeat(200) })).status, 201);
      const empty = await s.api.post('/v1/channels', { type: 'service_chat', name: '' });
      assert.equal(empty.status, 422);
    });

    test('mobile send_rate (beyond the specification): 1 and 1000 accepted, 0, 1001 and 2.5 refused on create and update; shown on the channel', async () => {
      const provider = BODIES.mobile!.provider as Record<string, unknown>;
      for (const rate of [0, 1001, 2.5, '5']) {
        const res = await s.api.post('/v1/channels', { ...BODIES.mobile, provider: { ...provider, send_rate: rate } });
        assert.equal(res.status, 422, `${rate}: ${res.text}`);
        assert.equal(res.body.errors.length, 1);
        assert.equal(res.body.errors[0].field, 'provider.send_rate');
        assert.deepEqual(res.body.errors[0].rejected_value, rate);
        assert.match(res.body.errors[0].message, /^Property 'provider\.send_rate' /);
      }
      const one = await s.api.post('/v1/channels', { ...BODIES.mobile, provider: { ...provider, send_rate: 1 } });
      assert.equal(one.status, 201, one.text);
      assert.equal(one.body.provider.send_rate, 1);
      assert.equal((await s.api.get(`/v1/channels/${one.body.id}`)).body.provider.send_rate, 1);
      const max = await s.api.patch(`/v1/channels/${one.body.id}`, { provider: { send_rate: 1000 } });
      assert.equal(max.status, 200, max.text);
      assert.equal(max.body.provider.send_rate, 1000);
      for (const rate of [0, 1001]) {
        const res = await s.api.patch(`/v1/channels/${one.body.id}`, { provider: { send_rate: rate } });
        assert.equal(res.status, 422, `${rate}: ${res.text}`);
        assert.equal(res.body.errors[0].field, 'provider.send_rate');
      }
      assert.equal((await s.api.get(`/v1/channels/${one.body.id}`)).body.provider.send_rate, 1000, 'a refused update changes nothing');
      const plain = await s.api.post('/v1/channels', BODIES.mobile);
      assert.equal('send_rate' in plain.body.provider, false, "absent: the type's rate");
    });

    test('type is immutable and required properties cannot be deleted', async () => {
      const { body } = await s.api.post('/v1/channels', BODIES.service_chat);
      const changeType = await s.api.patch(`/v1/channels/${body.id}`, { type: 'email' });
      assert.equal(changeType.status, 422);
      assert.equal(changeType.body.errors[0].field, 'type');
      const sameType = await s.api.patch(`/v1/channels/${body.id}`, { type: 'service_chat', name: 'same' });
      assert.equal(sameType.status, 200);
      const nullName = await s.api.patch(`/v1/channels/${body.id}`, { name: null });
      assert.deepEqual(nullName.body.errors[0], { message: "Property 'name' cannot be null.", field: 'name', rejected_value: null });
    });

    test('webhook: set, new url keeps id and secret, ssl_verification strings, null removes', async () => {
      const { body } = await s.api.post('/v1/channels', BODIES.service_chat);
      const path = `/v1/channels/${body.id}`;
      const set = await s.api.patch(path, { webhook: { url: 'https://example.com/a', ssl_verification: 'false' } });
      assert.equal(set.status, 200);
      assert.equal(set.body.webhook.ssl_verification, false);
      const moved = await s.api.patch(path, { webhook: { url: 'https://example.com/b' } });
      assert.equal(moved.body.webhook.url, 'https://example.com/b');
      assert.equal(moved.body.webhook.id, set.body.webhook.id);
      assert.equal(moved.body.webhook.secret, set.body.webhook.secret);
      assert.equal(moved.body.webhook.ssl_verification, false);
      const verify = await s.api.patch(path, { webhook: { ssl_verification: true } });
      assert.equal(verify.body.webhook.ssl_verification, true);
      const removed = await s.api.patch(path, { webhook: null });
      assert.equal(removed.body.webhook, null);
      assert.equal((await s.api.get(path)).body.webhook, null);
      const again = await s.api.patch(path, { webhook: { url: 'https://example.com/c' } });
      assert.notEqual(again.body.webhook.secret, set.body.webhook.secret);
      const badSsl = await s.api.patch(path, { webhook: { ssl_verification: 'maybe' } });
      assert.equal(badSsl.status, 422);
      assert.equal(badSsl.body.errors[0].field, 'webhook.ssl_verification');
      const badUrl = await s.api.patch(path, { webhook: { url: 'ftp://example.com' } });
      assert.equal(badUrl.status, 422);
      assert.equal(badUrl.body.errors[0].field, 'webhook.url');
      const noUrl = await s.api.post('/v1/channels', { ...BODIES.service_chat, webhook: {} });
      assert.equal(noUrl.status, 422);
      assert.equal(noUrl.body.errors[0].field, 'webhook.url');
    });

    test('webhook urls with literal private addresses are refused unless allowlisted', async () => {
      for (const url of ['http://10.1.2.3/h', 'http://169.254.169.254/latest', 'http://192.168.0.5:8080/x', 'http://[fd00::1]/h']) {
        const res = await s.api.post('/v1/channels', { ...BODIES.service_chat, webhook: { url } });
        assert.equal(res.status, 422, url);
        assert.equal(res.body.errors[0].field, 'webhook.url');
      }
      // The test server allowlists loopback, as WEBHOOK_ALLOWLIST does for development.
      const local = await s.api.post('/v1/channels', { ...BODIES.service_chat, webhook: { url: 'http://127.0.0.1:9/hook' } });
      assert.equal(local.status, 201);
    });

    test('credentials are checked with the platform before the channel is saved', async () => {
      const { api } = await s.newAccount();
      const ok = await api.post('/v1/channels', BODIES.botmsg);
      assert.equal(ok.status, 201);
      assert.deepEqual(ok.body.botmsg, { name: 'Shop bot', username: 'shop_bot', access_token: '123:bot-token' });
      const refused = await api.post('/v1/channels', { ...BODIES.botmsg, botmsg: { access_token: 'refused' } });
      assert.equal(refused.status, 422);
      assert.equal(refused.body.errors[0].field, 'botmsg.access_token');
      const down = await api.post('/v1/channels', { ...BODIES.botmsg, botmsg: { access_token: 'down' } });
      assert.equal(down.status, 502);
      assert.equal((await api.get('/v1/channels')).headers.get('x-total-count'), '1');
      const patchRefused = await api.patch(`/v1/channels/${ok.body.id}`, { botmsg: { access_token: 'refused' } });
      assert.equal(patchRefused.status, 422);
      assert.equal((await api.get(`/v1/channels/${ok.body.id}`)).body.botmsg.access_token, '123:bot-token');
    });

    test("another account's channel answers 404 exactly like a missing one", async () => {
      const { body } = await s.api.post('/v1/channels', BODIES.service_chat);
      const other = await s.newAccount();
      const missing = await other.api.get('/v1/channels/999999999');
      for (const res of [
        await other.api.get(`/v1/channels/${body.id}`),
        await other.api.patch(`/v1/channels/${body.id}`, { name: 'stolen' }),
        await other.api.delete(`/v1/channels/${body.id}`),
      ]) {
        assert.equal(res.status, 404);
        assert.deepEqual(res.body.errors, missing.body.errors);
      }
      assert.equal((await other.api.get('/v1/channels')).headers.get('x-total-count'), '0');
      assert.equal((await s.api.get(`/v1/channels/${body.id}`)).body.name, 'Web chat');
      assert.equal((await s.api.get('/v1/channels/abc')).status, 404);
      assert.equal((await s.api.get('/v1/channels/99999999999999999999')).status, 404);
    });

    test('platform credentials and webhook secrets are encrypted at rest', async () => {
      const res = await s.api.post('/v1/channels', { ...BODIES.mobile, webhook: { url: 'https://example.com/h' } });
      const row = await s.runtime.store.channels.find(s.accountId, Number(res.body.id));
      const raw = JSON.stringify(row);
      assert.ok(!raw.includes('sms-token'));
      assert.ok(!raw.includes('sms-signing'));
      assert.ok(!raw.includes(res.body.webhook.secret));
      assert.ok(raw.includes('+420601000111'), 'public fields stay readable');
    });

    test('list paging: max and offset boundaries', async () => {
      const { api } = await s.newAccount();
      for (let i = 0; i < 12; i++) await api.post('/v1/channels', { type: 'service_chat', name: `c${i}` });
      const first = await api.get('/v1/channels');
      assert.equal(first.body.length, 10);
      assert.equal(first.headers.get('x-total-count'), '12');
      assert.equal((await api.get('/v1/channels?offset=10')).body.length, 2);
      assert.equal((await api.get('/v1/channels?offset=12')).body.length, 0);
      assert.equal((await api.get('/v1/channels?max=100')).body.length, 12);
      assert.equal((await api.get('/v1/channels?max=1')).body.length, 1);
      for (const q of ['max=0', 'max=101', 'offset=-1', 'max=abc', 'max=1.5']) {
        const res = await api.get(`/v1/channels?${q}`);
        assert.equal(res.status, 422, q);
        assert.equal(res.body.errors[0].field, q.split('=')[0]);
      }
    });
  });
}
