import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/lib/clock.js';
import {
  ConnectorRegistry,
  CredentialCache,
  credentialKey,
  declaresEndpoint,
  defineConnector,
  type IssuedCredential,
  type PlatformResult,
} from '../../src/connectors/connector.js';
import { createServiceChatConnector, serverNotification, type WebChatPush } from '../../src/connectors/service_chat/connector.js';
import { CHANNEL_TYPE_DEFINITIONS } from '../../src/channel-types/index.js';
import { createBotmsgConnector } from '../../src/connectors/botmsg/connector.js';
import { botFailure } from '../../src/connectors/botmsg/api.js';
import { createSocialnetChatConnector } from '../../src/connectors/socialnet_chat/connector.js';
import { MediaDownloader } from '../../src/connectors/media-download.js';
import { InboundService, type InboundServiceDeps } from '../../src/domain/inbound/service.js';

// The connector contract's own logic: the role registry, declared endpoints, the credential
// cache on an injected clock, the full URL of inbound calls, service_chat's local delivery.

const media = new MediaDownloader({ allowlist: [] });

/** Every connector that is built, as the runtime registers them (the platforms are never called here). */
function builtConnectors(push: WebChatPush = { message() {}, notification() {} }): ConnectorRegistry {
  return new ConnectorRegistry()
    .register(createServiceChatConnector({ push }))
    .register(
      createBotmsgConnector({ apiUrl: 'http://127.0.0.1:1', secretHeaderName: 'x-secret', inboundUrl: () => '', timeoutMs: 10, maxMediaBytes: 1, media }),
    )
    .register(
      createSocialnetChatConnector({
        apiUrl: 'http://127.0.0.1:1',
        apiVersion: 'v1',
        tokenPrefix: 'sn',
        profileEdge: 'profile',
        callbackUrl: '',
        subscribeApp: false,
        timeoutMs: 10,
        maxMediaBytes: 1,
        media,
      }),
    );
}

test('the registry answers which roles a type plays, and nothing for a role it does not play', () => {
  const registry = builtConnectors();
  assert.deepEqual(registry.rolesOf('service_chat'), ['sender', 'localPush']);
  assert.deepEqual(registry.rolesOf('botmsg'), ['sender', 'notifications', 'channelInbound', 'media', 'verifier']);
  assert.deepEqual(registry.rolesOf('socialnet_chat'), [
    'sender',
    'notifications',
    'appInbound',
    'handshake',
    'media',
    'profiles',
    'verifier',
    'settings',
    'channelState',
  ]);
  assert.deepEqual(registry.rolesOf('mobile'), []);
  assert.equal(registry.role('mobile', 'sender'), undefined);
  assert.equal(registry.role('service_chat', 'notifications'), undefined, 'the service is its own platform: nothing to call');
  assert.equal(registry.role('botmsg', 'appInbound'), undefined);
  assert.deepEqual(registry.role('botmsg', 'channelInbound')?.endpoints, [{ name: 'updates', methods: ['POST'] }]);
  assert.equal(registry.role('socialnet_chat', 'appInbound')?.channelKeyField, 'id');
  // A role's name is looked up as the registry's own key, not through the prototype.
  assert.equal(registry.role('botmsg', 'toString' as 'sender'), undefined);
});

test("each built connector plays the roles its type's definition relies on", () => {
  const registry = builtConnectors();
  for (const definition of CHANNEL_TYPE_DEFINITIONS) {
    const { type } = definition;
    if (!registry.has(type)) continue;
    const inbound = registry.role(type, 'channelInbound');
    // The channel view shows the URLs of these endpoints: the connector must answer them.
    for (const endpoint of definition.inboundEndpoints) {
      assert.ok(
        inbound?.endpoints.some((e) => e.name === endpoint),
        `${type}: endpoint ${endpoint} shown but not declared`,
      );
    }
    if (definition.capabilities.delivery === 'sync') assert.ok(registry.role(type, 'sender'), `${type}: a synchronous type sends`);
    if (definition.capabilities.notifications.length > 0) {
      assert.ok(registry.role(type, 'notifications') ?? registry.role(type, 'localPush'), `${type}: notifications reach someone`);
    }
    if (definition.settings.appliedOnPlatform) assert.ok(registry.role(type, 'settings'), `${type}: settings act on the platform`);
  }
});

test('defineConnector keeps exactly the roles given, typed', async () => {
  const connector = defineConnector('appmsg', { sender: { send: async () => ({ ok: true, value: { externalIds: ['a', 'b'] } }) } });
  const sent = await connector.roles.sender.send(
    { id: '1', type: 'appmsg', mode: 'production', config: {}, secrets: {} },
    { id: '2', externalId: 'u', phoneNumber: null, userRef: null, email: null, name: null },
    { id: '3', content: { type: 'text', payload: 'hi' }, ttlMs: 60_000 },
  );
  assert.deepEqual(sent, { ok: true, value: { externalIds: ['a', 'b'] } });
  assert.deepEqual(Object.keys(connector.roles), ['sender']);
});

test('declared endpoints: the name and the method must both match', () => {
  const endpoints = [
    { name: 'status', methods: ['GET'] },
    { name: 'receive', methods: ['POST'] },
  ] as const;
  assert.equal(declaresEndpoint(endpoints, 'status', 'GET'), true);
  assert.equal(declaresEndpoint(endpoints, 'status', 'POST'), false);
  assert.equal(declaresEndpoint(endpoints, 'receive', 'POST'), true);
  assert.equal(declaresEndpoint(endpoints, 'receive', 'HEAD'), false);
  assert.equal(declaresEndpoint(endpoints, 'updates', 'POST'), false);
  assert.equal(declaresEndpoint(endpoints, '__proto__', 'GET'), false);
});

test('credential cache: reused until shortly before expiry, one request for concurrent callers, failures and refused tokens not kept', async () => {
  const clock = new ManualClock(1_000_000);
  const cache = new CredentialCache({ clock, renewBeforeMs: 60_000 });
  let issued = 0;
  let answer: 'ok' | 'down' = 'ok';
  const obtain = async (): Promise<PlatformResult<IssuedCredential>> => {
    await new Promise((r) => setTimeout(r, 5));
    if (answer === 'down') return { ok: false, retryable: true, code: 'unreachable', message: 'down', retryAfterMs: 1000 };
    issued += 1;
    return { ok: true, value: { value: `token-${issued}`, expiresInMs: 3_600_000 } };
  };
  const key = credentialKey('42', 'service-account-key');
  const concurrent = await Promise.all([cache.get(key, obtain), cache.get(key, obtain), cache.get(key, obtain)]);
  assert.deepEqual(
    concurrent.map((r) => r.ok && r.value),
    ['token-1', 'token-1', 'token-1'],
  );
  assert.equal(issued, 1, 'one request to the platform');

  clock.advance(3_600_000 - 60_001);
  assert.deepEqual(await cache.get(key, obtain), { ok: true, value: 'token-1' }, 'still good');
  clock.advance(1);
  assert.deepEqual(await cache.get(key, obtain), { ok: true, value: 'token-2' }, 'renewed a minute before it expires');

  cache.forget(key);
  answer = 'down';
  const failed = await cache.get(key, obtain);
  assert.equal(failed.ok, false);
  assert.equal(!failed.ok && failed.retryAfterMs, 1000);
  answer = 'ok';
  assert.deepEqual(await cache.get(key, obtain), { ok: true, value: 'token-3' }, 'a failure is not kept');

  // Another secret of the same channel is another key: a replaced key never reuses the old token.
  assert.notEqual(credentialKey('42', 'replaced-key'), key);
  assert.ok(!credentialKey('42', 'service-account-key').includes('service-account-key'));
});

test('credential cache: bounded, the oldest credential dropped first', async () => {
  const cache = new CredentialCache({ clock: new ManualClock(), maxEntries: 2 });
  const issue = (value: string) => async () => ({ ok: true as const, value: { value, expiresInMs: 3_600_000 } });
  await cache.get('a', issue('A'));
  await cache.get('b', issue('B'));
  await cache.get('c', issue('C'));
  assert.equal(cache.size, 2);
  assert.deepEqual(await cache.get('a', issue('A2')), { ok: true, value: 'A2' }, 'a was dropped');
  assert.deepEqual(await cache.get('c', issue('C2')), { ok: true, value: 'C' }, 'c was kept');
});

test('the full URL of an inbound call is the public address with the path and query exactly as received', () => {
  const inbound = (publicUrl: string) => new InboundService({ publicUrl } as InboundServiceDeps);
  const service = inbound('https://parley.example.com/v1');
  const raw = '/v1/inbound/123/status?id=ab&statusDatetime=2026-11-23T10:00:00 00:00&price%5Bamount%5D=0.1';
  assert.equal(service.callUrl(raw), `https://parley.example.com${raw}`);
  // Behind a proxy that serves the API under a prefix, the platform called the public URL.
  assert.equal(inbound('https://example.com/parley/v1/').callUrl('/v1/inbound/1/receive'), 'https://example.com/parley/v1/inbound/1/receive');
  // An absolute-form request line names the same path.
  assert.equal(service.callUrl('http://internal:8080/v1/inbound/1/status?a=1'), 'https://parley.example.com/v1/inbound/1/status?a=1');
});

test('service_chat: notifications in the web chat protocol, pushed through the port', () => {
  const at = Date.UTC(2026, 10, 23, 10, 0, 0);
  assert.deepEqual(serverNotification({ type: 'messages_read', at }), { type: 'messages_read', last_read_timestamp: '2026-11-23T10:00:00.000Z' });
  assert.deepEqual(serverNotification({ type: 'custom', payload: { a: 1 }, at }), { type: 'custom', payload: { a: 1 } });
  assert.deepEqual(serverNotification({ type: 'typing_on', at }), { type: 'typing_on' });
  const pushed: unknown[] = [];
  const connector = createServiceChatConnector({
    push: { message: (id, m) => pushed.push([id, m.id]), notification: (id, n) => pushed.push([id, n]) },
  });
  const channel = { id: '1', type: 'service_chat' as const, mode: 'production' as const, config: {}, secrets: {} };
  connector.roles.localPush.pushNotification(channel, '7', { type: 'typing_off', at });
  assert.deepEqual(pushed, [['7', { type: 'typing_off' }]]);
});

test('a platform that says when to try again: retryAfterMs on the failure', () => {
  const limited = botFailure(429, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } });
  assert.deepEqual(limited, {
    ok: false,
    retryable: true,
    code: 'rate_limited',
    message: 'Too Many Requests: retry after 7 (retry after 7 s)',
    retryAfterMs: 7000,
  });
  const plain = botFailure(429, { ok: false, error_code: 429, description: 'Too Many Requests' });
  assert.equal('retryAfterMs' in plain, false);
});
