import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CHANNEL_TYPE_DEFINITIONS, definitionOf, isWebChatType, WEB_CHAT_DEFINITION } from '../../src/channel-types/index.js';
import { CHANNEL_MODES, CHANNEL_TYPES } from '../../src/schemas/channel-types.js';
import { CONTACT_FORMS } from '../../src/schemas/content.js';
import { ConnectorRegistry, defineConnector } from '../../src/connectors/connector.js';
import { parseAddress } from '../../src/domain/messages/addressing.js';
import { sendingPath } from '../../src/domain/messages/sending.js';
import { ChannelResponse } from '../../src/domain/channels/schemas.js';
import { failure } from '../helpers/api-errors.js';

const SAMPLE_ADDRESS = {
  id: { id: '123' },
  phone_number: { phone_number: '+420601123456' },
  user_ref: { user_ref: 'ref-1' },
  email: { email: 'jan@example.com' },
};

/** A registry that fails the test when asked: a path that needs no connector must not ask. */
const NO_QUESTIONS = new Proxy(
  {},
  {
    get() {
      throw new Error('the connector registry was asked');
    },
  },
) as unknown as ConnectorRegistry;

const schemaKeys = (schema: unknown) => Object.keys((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});

describe('channel type definitions', () => {
  test('one definition per type, in the order of the types, each naming its own type', () => {
    assert.deepEqual(
      CHANNEL_TYPE_DEFINITIONS.map((d) => d.type),
      [...CHANNEL_TYPES],
    );
    for (const type of CHANNEL_TYPES) assert.equal(definitionOf(type).type, type);
  });

  test('modes: production first, known modes only, none twice', () => {
    for (const d of CHANNEL_TYPE_DEFINITIONS) {
      assert.equal(d.modes[0], 'production', d.type);
      assert.equal(new Set(d.modes).size, d.modes.length, d.type);
      for (const mode of d.modes) assert.ok(CHANNEL_MODES.includes(mode), `${d.type} ${mode}`);
    }
  });

  test('asynchronous types have no direct send path and no defaults of one: queued with a sender, unavailable without one', () => {
    const sender = { send: async () => ({ ok: true as const, value: { externalIds: [] } }) };
    for (const d of CHANNEL_TYPE_DEFINITIONS) {
      if (d.capabilities.delivery !== 'async') continue;
      assert.equal(d.send.directDefaults, undefined, d.type);
      const withSender = new ConnectorRegistry().register(defineConnector(d.type, { sender }));
      assert.equal(sendingPath({ type: d.type, mode: 'production' }, withSender), 'queued', d.type);
      assert.equal(sendingPath({ type: d.type, mode: 'production' }, new ConnectorRegistry()), 'unavailable', d.type);
      if (d.modes.includes('test')) assert.equal(sendingPath({ type: d.type, mode: 'test' }, NO_QUESTIONS), 'test', d.type);
    }
  });

  test('the contact forms of the capabilities are exactly the addressing a send accepts, and a contact shows what it can be named by', () => {
    for (const d of CHANNEL_TYPE_DEFINITIONS) {
      const forms = d.capabilities.contactForms;
      assert.ok(forms.length > 0, d.type);
      for (const form of CONTACT_FORMS) {
        const refused = failure(() => parseAddress(d.type, SAMPLE_ADDRESS[form], undefined));
        assert.equal(refused === null, forms.includes(form), `${d.type} by ${form}`);
      }
      assert.equal(d.contactView.phoneNumber, forms.includes('phone_number'), `${d.type} shows the phone number`);
      assert.equal(d.contactView.email, forms.includes('email'), `${d.type} shows the e-mail address`);
      // Rules on the phone number of a production send need sends by phone number.
      if (d.send.checkProduction) assert.ok(forms.includes('phone_number'), d.type);
    }
  });

  test('inputs: credentials and update rules name fields of the type object; extra fields are optional', () => {
    for (const d of CHANNEL_TYPE_DEFINITIONS) {
      const { input, update } = d;
      assert.equal(input.key === undefined, input.schema === undefined, `${d.type}: a key goes with a schema`);
      if (!input.schema) assert.equal(input.required, false, d.type);
      const fields = schemaKeys(input.schema);
      for (const f of [...input.secretFields, ...update.ownKeys, ...update.reverifyKeys]) assert.ok(fields.includes(f), `${d.type}.${f}`);
      for (const f of update.reverifyKeys) assert.ok(!input.secretFields.includes(f), `${d.type}.${f}: credentials always re-verify`);
      for (const [name, schema] of Object.entries(input.extraFields ?? {})) {
        assert.equal((schema as unknown as Record<symbol, unknown>)[Symbol.for('TypeBox.Optional')], 'Optional', `${d.type} ${name}`);
      }
    }
  });

  test('views: each type shows its object under its input key, documented in the Channel object', () => {
    const documented = schemaKeys(ChannelResponse);
    for (const d of CHANNEL_TYPE_DEFINITIONS) {
      // rbm shows its platform fields (the webhook URL among them) once it has a key.
      const own = { agent_name: 'a', id: '1', access_token: 't', service_account_key: '{}' };
      for (const placement of ['get', 'list'] as const) {
        const fields = d.view.render({ own, region: 'europe', placement, inboundUrl: (e) => `https://example.com/inbound/9/${e}` });
        for (const key of Object.keys(fields)) {
          assert.ok(key === d.input.key || key === 'region', `${d.type} shows ${key}`);
          assert.ok(documented.includes(key), `${key} is documented`);
        }
        if (d.input.key) assert.ok(d.input.key in fields, `${d.type} shows ${d.input.key}`);
        if (d.inboundEndpoints.length > 0) {
          const urls = Object.values(fields[d.input.key!] as Record<string, unknown>).filter((v) => typeof v === 'string' && v.startsWith('https://'));
          assert.deepEqual(
            urls,
            d.inboundEndpoints.map((e) => `https://example.com/inbound/9/${e}`),
          );
        }
      }
      if (d.view.schema) assert.ok(d.input.key, d.type);
    }
  });

  test('inbound endpoints are path segments, none twice', () => {
    for (const d of CHANNEL_TYPE_DEFINITIONS) {
      assert.equal(new Set(d.inboundEndpoints).size, d.inboundEndpoints.length, d.type);
      for (const e of d.inboundEndpoints) assert.match(e, /^[a-z][a-z_]*$/, d.type);
    }
  });

  test('settings: every name has its check, and the documented schema names them all', () => {
    for (const d of CHANNEL_TYPE_DEFINITIONS) {
      const { settings } = d;
      assert.deepEqual([...settings.names].sort(), Object.keys(settings.check).sort(), d.type);
      if (settings.names.length === 0) {
        assert.equal(settings.schema, undefined, d.type);
        assert.equal(settings.appliedOnPlatform, false, d.type);
      } else assert.deepEqual(schemaKeys(settings.schema), [...settings.names], d.type);
    }
  });

  test('send policies: reserved metadata keys go with their check', () => {
    for (const d of CHANNEL_TYPE_DEFINITIONS) assert.equal(d.send.reservedMetadata.length > 0, d.send.checkMetadata !== undefined, d.type);
  });

  test('exactly one type is the web chat, and it sends inside the request', () => {
    const webChats = CHANNEL_TYPE_DEFINITIONS.filter((d) => d.webChat);
    assert.equal(webChats.length, 1);
    assert.equal(WEB_CHAT_DEFINITION, webChats[0]);
    assert.equal(WEB_CHAT_DEFINITION.capabilities.delivery, 'sync');
    assert.ok(isWebChatType(WEB_CHAT_DEFINITION.type));
    assert.equal(isWebChatType('unknown'), false);
    assert.equal(isWebChatType('toString'), false);
  });
});

describe('send policies as pure rules', () => {
  const defaults = definitionOf('socialnet_chat').send.directDefaults!;
  const now = 1_000_000_000;

  test('socialnet_chat: a send by phone number before the opt-in takes the opt-in tag, without reading the activity', () => {
    const facts = { byPhoneNumber: true, contactKnown: false };
    assert.equal(defaults.needsActivity(undefined, facts), false);
    assert.deepEqual(defaults.apply({ a: 1 }, facts, now, null), { a: 1, tag: 'non_promotional_subscription' });
  });

  test("socialnet_chat: without tag or type the reply window picks the type; the client's tag or type is kept", () => {
    const facts = { byPhoneNumber: false, contactKnown: true };
    assert.equal(defaults.needsActivity(undefined, facts), true);
    assert.deepEqual(defaults.apply(undefined, facts, now, { lastInboundAt: now - 1000, lastSentAt: null }), { type: 'response' });
    assert.deepEqual(defaults.apply(undefined, facts, now, { lastInboundAt: null, lastSentAt: null }), { type: 'update' });
    for (const metadata of [{ tag: 'human_agent' }, { type: 'update' }]) {
      assert.equal(defaults.needsActivity(metadata, { byPhoneNumber: true, contactKnown: false }), false);
      assert.deepEqual(defaults.apply(metadata, facts, now, null), metadata);
    }
  });

  test('rbm: production sends follow the agent state; accepted testers only before the launch', () => {
    const check = definitionOf('rbm').send.checkProduction!;
    const channel = (agent_state: string) => ({ id: '7', config: { agent_state, testers: { '+420601123456': 'accepted', '+420601000001': 'pending' } } });
    assert.equal(failure(() => check(channel('new'), '+420601123456'))?.field, 'channel.id');
    assert.equal(
      failure(() => check(channel('created'), '+420601123456')),
      null,
    );
    assert.equal(failure(() => check(channel('created'), '+420601000000'))?.field, 'contact.phone_number');
    assert.equal(failure(() => check(channel('created'), '+420601000001'))?.field, 'contact.phone_number');
    assert.equal(
      failure(() => check(channel('launched'), '+420601000000')),
      null,
    );
  });

  test('rbm: the client moves the agent only new -> create_requested and created -> launch_requested', () => {
    const apply = definitionOf('rbm').update.apply!;
    const moved = (from: string, to: string) => {
      const config: Record<string, unknown> = { agent_state: from };
      const f = failure(() => apply(config, { agent_state: to }, {}));
      return f === null ? config.agent_state : f.field;
    };
    assert.equal(moved('new', 'create_requested'), 'create_requested');
    assert.equal(moved('created', 'launch_requested'), 'launch_requested');
    assert.equal(moved('new', 'launched'), 'rbm.agent_state');
    assert.equal(moved('launched', 'launched'), 'launched');
  });
});

describe('the domain names no platform', () => {
  function files(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
    });
  }

  test('no quoted channel type name in the code of src/domain (comments may name them)', () => {
    const quoted = new RegExp(`(['"\`])(${CHANNEL_TYPES.join('|')})\\1`);
    // A request field that shares a type's name (a user's `email`) named as the field of an error is no platform.
    const fieldOfError = new RegExp(`ApiError\\.invalid\\((['"\`])(${CHANNEL_TYPES.join('|')})\\1`, 'g');
    const found: string[] = [];
    for (const file of files('src/domain')) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const code = line.trim();
          if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
          if (quoted.test(code.replace(fieldOfError, 'ApiError.invalid(field'))) found.push(`${file}:${i + 1}: ${code}`);
        });
    }
    assert.deepEqual(found, []);
  });
});
