import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { CHANNEL_TYPES } from '../../src/schemas/channel-types.js';
import { definitionOf } from '../../src/channel-types/index.js';
import { ADMIN_TEST_ENV, signedIn, type AdminClient } from './admin-data-client.js';

type Json = Record<string, any>;

describe('administration: the channel types as the app shows them', () => {
  let s: TestServer;
  let app: AdminClient;
  let types: Json[];
  before(async () => {
    s = await startTestServer('sqlite', { env: ADMIN_TEST_ENV });
    app = await signedIn(s, s.accountId, 'member');
    const res = await app.get('/channel-types');
    assert.equal(res.status, 200, res.text);
    types = res.body.data;
  });
  after(async () => s?.close());

  test('needs a session', async () => {
    const res = await fetch(`${s.origin}/admin/api/channel-types`);
    assert.equal(res.status, 401);
  });

  test("every type, in the specification's order, with its names and its definition's modes", () => {
    assert.deepEqual(
      types.map((t) => t.type),
      [...CHANNEL_TYPES],
    );
    for (const t of types) {
      assert.ok(t.label.includes(t.type), `${t.type}: the label names the id`);
      assert.ok(t.short_label && t.intro, t.type);
      assert.deepEqual(
        t.modes.map((m: Json) => m.mode),
        [...definitionOf(t.type).modes],
      );
      assert.ok(
        t.modes.every((m: Json) => m.label.length > m.mode.length),
        `${t.type}: every mode is explained`,
      );
    }
  });

  test('says how a known contact is addressed, and what the type can send', () => {
    const of = (type: string) => types.find((t) => t.type === type)!;
    assert.deepEqual(
      types.filter((t) => t.contact_address === 'phone_number').map((t) => t.type),
      ['mobile', 'rbm', 'appmsg_business_messages'],
    );
    assert.equal(of('email').contact_address, 'id');
    assert.equal(of('mobile').sends.delivery, 'async');
    assert.deepEqual(of('mobile').sends.content_types, [...definitionOf('mobile').capabilities.contentTypes]);
    assert.deepEqual(
      types.filter((t) => t.web_chat).map((t) => t.type),
      ['service_chat'],
    );
    assert.deepEqual(of('service_chat').settings, ['domains_whitelist']);
    assert.deepEqual(of('botmsg').settings, []);
  });

  test('fields: required and secret as the definition says, every required property of the type object asked for', () => {
    for (const t of types) {
      const { input } = definitionOf(t.type);
      const paths = t.fields.map((f: Json) => f.path as string);
      assert.equal(new Set(paths).size, paths.length, `${t.type}: each path once`);
      for (const f of t.fields) {
        const [first, second] = (f.path as string).split('.');
        assert.ok(first === input.key || (input.extraFields && first! in input.extraFields), `${t.type}: ${f.path} is a field of the request`);
        assert.equal(f.secret, first === input.key && input.secretFields.includes(second!), `${t.type}: ${f.path} secret`);
      }
      const schema = input.schema as Json | undefined;
      if (!schema || !input.required) continue;
      for (const name of schema.required ?? []) {
        const property: Json = schema.properties[name];
        const path = `${input.key}.${name}`;
        if (property.const !== undefined) assert.equal(t.fixed[path], property.const, `${t.type}: ${path} fixed`);
        else if (property.type === 'object')
          assert.ok(
            paths.some((p: string) => p.startsWith(`${path}.`)),
            `${t.type}: ${path} asked for`,
          );
        else
          assert.ok(
            t.fields.some((f: Json) => f.path === path && f.required),
            `${t.type}: ${path} asked for and required`,
          );
      }
    }
    const mobile = types.find((t) => t.type === 'mobile')!;
    assert.deepEqual(mobile.fixed, { 'provider.type': 'smsprovider' });
    assert.deepEqual(
      mobile.fields.filter((f: Json) => f.secret).map((f: Json) => f.path),
      ['provider.access_token', 'provider.signing_key'],
    );
  });

  test("a platform-side state reads at its definition's key, its panel's steps among its states", () => {
    const rbm = types.find((t) => t.type === 'rbm')!;
    assert.equal(rbm.platform_state.path, 'rbm.agent_state');
    const states = rbm.platform_state.states.map((x: Json) => x.state);
    assert.ok(states.includes(rbm.platform_state.initial));
    for (const action of rbm.platform_state.panel.actions) assert.ok(states.includes(action.from) && states.includes(action.to), action.label);
    assert.deepEqual(
      rbm.platform_state.panel.actions.map((a: Json) => a.to),
      definitionOf('rbm').platformState!.requested,
    );
    const social = types.find((t) => t.type === 'socialnet_chat')!;
    assert.equal(social.platform_state.path, 'socialnet_page.page_state');
    assert.equal(social.platform_state.missing.path, 'socialnet_page.id');
    assert.equal(types.find((t) => t.type === 'mobile')!.platform_state, null);
  });
});
