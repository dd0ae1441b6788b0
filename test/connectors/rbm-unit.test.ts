import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createRbmStandIn } from '../../sandbox/rbm/server.js';
import { createRbmConnector } from '../../src/connectors/rbm/connector.js';
import { platformMessageId } from '../../src/connectors/rbm/render.js';
import { regionalUrl } from '../../src/connectors/rbm/options.js';
import { stateOf } from '../../src/connectors/rbm/lifecycle.js';
import { MediaDownloader } from '../../src/connectors/media-download.js';
import type { ChannelContext, InboundCall, Recipient } from '../../src/connectors/connector.js';
import { http } from './helpers/harness.js';

const PHONE = '+420601200300';

describe('rbm connector against the stand-in, without the service', () => {
  let rbm: ReturnType<typeof createRbmStandIn>;
  let base: string;
  let connector: ReturnType<typeof createRbmConnector>;
  let channel: ChannelContext;
  const recipient: Recipient = { id: '1', externalId: null, phoneNumber: PHONE, userRef: null, email: null, name: null };

  before(async () => {
    rbm = createRbmStandIn();
    base = await rbm.listen(0);
    connector = createRbmConnector({
      apiUrl: base,
      managementUrl: `${base}/mgmt`,
      tokenUrl: `${base}/token`,
      messagingScope: 'rbm.messaging',
      managementScope: 'rbm.management',
      productKey: 'rbm',
      signatureHeaderName: 'X-Rbm-Signature',
      timeoutMs: 2000,
      clock: { now: () => Date.now() },
      media: new MediaDownloader({ allowlist: ['127.0.0.1'] }),
      maxMediaBytes: 1_000_000,
    });
    const agent = await http('POST', `${base}/_sandbox/agents`, { launched_carriers: ['sandbox-carrier'] });
    await http('POST', `${base}/_sandbox/phones`, { phone_number: PHONE });
    channel = {
      id: '42',
      type: 'rbm',
      mode: 'production',
      config: { agent_id: agent.body.agent.id, region: 'europe' },
      secrets: { service_account_key: JSON.stringify(agent.body.service_account_key), client_token: 'client-token-of-the-channel' },
    };
  });
  after(() => rbm?.close());

  const tokenCalls = async () => ((await http('GET', `${base}/_sandbox/requests?path_contains=/token`)).body.requests as unknown[]).length;

  test('a message sent again (a retry after an unknown outcome) reaches the platform once, under the same UUID', async () => {
    const message = { id: '374461222686721', content: { type: 'text' as const, payload: 'Once only' }, ttlMs: 60_000 };
    const first = await connector.roles.sender.send(channel, recipient, message);
    const second = await connector.roles.sender.send(channel, recipient, message);
    assert.ok(first.ok && second.ok);
    assert.deepEqual(first.value.externalIds, [platformMessageId(message.id)]);
    assert.deepEqual(second.value.externalIds, first.value.externalIds);
    const taken = rbm.state.agentMessages.filter((m) => m.body.contentMessage && (m.body.contentMessage as { text?: string }).text === 'Once only');
    assert.equal(taken.length, 1);
    assert.equal(taken[0]!.body.ttl, '60s');
    assert.match(platformMessageId('1'), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(platformMessageId('1'), platformMessageId('2'));
  });

  test('tokens are obtained once and reused; a token the platform refuses is dropped and the next call obtains another', async () => {
    const before = await tokenCalls();
    for (let i = 0; i < 3; i++) {
      const sent = await connector.roles.sender.send(channel, recipient, { id: `9${i}`, content: { type: 'text', payload: `t${i}` } });
      assert.ok(sent.ok, JSON.stringify(sent));
    }
    assert.equal(await tokenCalls(), before, 'the cached token serves every call');
    rbm.state.tokens.clear();
    const refused = await connector.roles.sender.send(channel, recipient, { id: '95', content: { type: 'text', payload: 'after' } });
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.code, 'unauthenticated');
    assert.equal(!refused.ok && refused.retryable, true);
    const again = await connector.roles.sender.send(channel, recipient, { id: '95', content: { type: 'text', payload: 'after' } });
    assert.ok(again.ok);
    assert.equal(await tokenCalls(), before + 1);
  });

  test('calls signed by the stand-in are read; the same bytes with another token or over the envelope are refused', async () => {
    // The stand-in pushes to a URL that records the call; the connector reads exactly those bytes.
    const calls: InboundCall[] = [];
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req
        .on('data', (c: Buffer) => chunks.push(c))
        .on('end', () => {
          const rawBody = Buffer.concat(chunks);
          const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
          const call: InboundCall = { method: 'POST', endpoint: 'events', url: `http://x${req.url}`, headers, query: {}, rawBody };
          calls.push(call);
          const parsed = connector.roles.channelInbound.parse(call, channel);
          res.end(parsed.ok && parsed.reply ? parsed.reply.body : '');
        });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/events`;
      const agentId = String(channel.config.agent_id);
      const hooked = await http('PUT', `${base}/_sandbox/agents/${agentId}/webhook`, { url, client_token: channel.secrets.client_token });
      assert.equal(hooked.status, 200, 'the handshake is answered with the secret');
      const wrongToken = await http('PUT', `${base}/_sandbox/agents/${agentId}/webhook`, { url, client_token: 'another' });
      assert.equal(wrongToken.status, 422);
      await http('PUT', `${base}/_sandbox/agents/${agentId}/webhook`, { url, client_token: channel.secrets.client_token });

      await http('POST', `${base}/_sandbox/agents/${agentId}/phones/${encodeURIComponent(PHONE)}/messages`, { text: 'Dobrý den' });
      const call = calls.at(-1)!;
      const parsed = connector.roles.channelInbound.parse(call, channel);
      assert.ok(parsed.ok);
      assert.equal(parsed.events.length, 1);
      const event = parsed.events[0]!;
      assert.equal(event.kind, 'message');
      assert.deepEqual(event.kind === 'message' && event.content, { type: 'text', text: 'Dobrý den' });
      assert.deepEqual(event.user, { phoneNumber: PHONE });

      const other = connector.roles.channelInbound.parse(call, { ...channel, secrets: { ...channel.secrets, client_token: 'another' } });
      assert.deepEqual(other.ok ? 'read' : other.status, 401);
      const envelopeSig = createHmac('sha512', channel.secrets.client_token!).update(call.rawBody).digest('base64');
      const overEnvelope = connector.roles.channelInbound.parse({ ...call, headers: { ...call.headers, 'x-rbm-signature': envelopeSig } }, channel);
      assert.equal(overEnvelope.ok, false);
      const otherAgent = connector.roles.channelInbound.parse(call, { ...channel, config: { ...channel.config, agent_id: 'someone_else' } });
      assert.deepEqual(otherAgent.ok && otherAgent.events, [], "another agent's events are dropped");

      await http('POST', `${base}/_sandbox/agents/${agentId}/phones/${encodeURIComponent(PHONE)}/typing`, {});
      const typing = connector.roles.channelInbound.parse(calls.at(-1)!, channel);
      assert.deepEqual(typing.ok && typing.events, []);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('regional hosts and the neutral state of the platform’s verification and launch', () => {
    assert.equal(regionalUrl('https://{region}-messaging.example/', 'north_america'), 'https://us-messaging.example');
    assert.equal(regionalUrl('https://{region}-messaging.example', 'asia_pacific'), 'https://asia-messaging.example');
    assert.equal(regionalUrl('http://127.0.0.1:9105', 'europe'), 'http://127.0.0.1:9105');
    assert.equal(stateOf('VERIFICATION_STATE_PENDING', {}).state, 'create_requested');
    assert.equal(stateOf('VERIFICATION_STATE_VERIFIED', {}).state, 'created');
    assert.equal(stateOf('VERIFICATION_STATE_VERIFIED', { a: { launchState: 'LAUNCH_STATE_PENDING' } }).state, 'launch_requested');
    const rejected = stateOf('VERIFICATION_STATE_VERIFIED', { a: { launchState: 'LAUNCH_STATE_REJECTED', comment: 'No logo.' } });
    assert.deepEqual([rejected.state, rejected.reason, rejected.reach], ['created', 'No logo.', 'testers']);
    const launched = stateOf('VERIFICATION_STATE_VERIFIED', { a: { launchState: 'LAUNCH_STATE_REJECTED' }, b: { launchState: 'LAUNCH_STATE_LAUNCHED' } });
    assert.deepEqual([launched.state, launched.reach], ['launched', 'anyone']);
  });
});
