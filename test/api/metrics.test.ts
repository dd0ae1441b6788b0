import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { eventually } from '../helpers/waits.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import { http } from '../connectors/helpers/harness.js';
import { send } from './messages-fixtures.js';
import { parseMetrics, scrape, valueOf, type Sample } from './metrics-scrape.js';
import { openChat } from '../chat/helpers/chat-clients.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * /metrics after a known load, on both stores: sends through the queue to the smsprovider
 * stand-in with their webhooks delivered, a delivery report, requests labelled by route
 * template; queue depths read from the store; the scrape's own token and address.
 */

const ACCESS_KEY = 'live_metricstestkey00000000001';
const SIGNING_KEY = 'provider-signing-key-of-the-metrics-tests';
const TEXT = { type: 'text', payload: 'Your parcel is on its way.' };
const SENDS = 3;

for (const { dialect, skip } of await dialects()) {
  describe(`Metrics after a known load (${dialect})`, { skip }, () => {
    let s: TestServer;
    let sms: ReturnType<typeof createSmsproviderStandIn>;
    let smsBase: string;
    let hook: WebhookReceiver;
    let channel: { id: string; mode: string };
    const messageIds: string[] = [];
    const clock = new ManualClock(Date.now());

    before(async () => {
      sms = createSmsproviderStandIn({ accessKey: ACCESS_KEY, signingKey: SIGNING_KEY, now: () => clock.now() });
      smsBase = await sms.listen(0);
      s = await startTestServer(dialect, {
        clock,
        workers: true,
        env: { SMSPROVIDER_API_URL: smsBase, PLATFORM_TIMEOUT_MS: '15000', WORKER_POLL_MS: '25' },
      });
      hook = await startWebhookReceiver();
      const res = await s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        webhook: { url: hook.url },
        provider: { type: 'smsprovider', sender_id: 'Parley', access_token: ACCESS_KEY, signing_key: SIGNING_KEY, send_rate: 100 },
      });
      assert.equal(res.status, 201, res.text);
      hook.secret = res.body.webhook.secret;
      channel = { id: res.body.id, mode: res.body.mode };
      assert.ok(channel.mode, 'the channel has a mode');
    });
    after(async () => {
      await s?.close();
      await Promise.allSettled([sms?.close(), hook?.close()]);
    });

    test(`${SENDS} sends are counted as accepted, sent and delivered to the webhook, with their latencies`, async () => {
      for (let i = 0; i < SENDS; i++) {
        const res = await send(s.api, channel.id, { phone_number: `+42060190000${i}` }, TEXT);
        assert.equal(res.status, 201, res.text);
        messageIds.push(res.body.id);
      }
      // Counted once the worker recorded each outcome.
      const samples = await eventually(
        async () => {
          const got = await scrape(s.origin);
          const sent = valueOf(got, 'parley_send_jobs_total', { type: 'mobile', outcome: 'sent' });
          const delivered = valueOf(got, 'parley_webhook_deliveries_total', { outcome: 'delivered' });
          return sent === SENDS && delivered === SENDS ? got : undefined;
        },
        15_000,
        `${SENDS} sent and ${SENDS} webhooks delivered`,
      );
      assert.equal(valueOf(samples, 'parley_messages_accepted_total', { type: 'mobile', mode: channel.mode }), SENDS);
      assert.equal(valueOf(samples, 'parley_send_latency_seconds_count', { type: 'mobile' }), SENDS);
      assert.equal(valueOf(samples, 'parley_webhook_latency_seconds_count'), SENDS);
      assert.equal(valueOf(samples, 'parley_send_jobs_total', { type: 'mobile', outcome: 'failed' }), undefined, 'nothing failed');
      assert.ok((valueOf(samples, 'parley_platform_calls_total', { platform: 'mobile', status_class: '2xx' }) ?? 0) >= SENDS, 'the platform calls');
      assert.ok((valueOf(samples, 'parley_platform_call_duration_seconds_count', { platform: 'mobile' }) ?? 0) >= SENDS);
      assert.equal(valueOf(samples, 'parley_http_request_duration_seconds_count', { method: 'POST', route: '/v1/messages', status: '201' }), SENDS);
    });

    test('a delivery report is an accepted inbound call of its type; a call naming no channel is not_found', async () => {
      const messages = (await http('GET', `${smsBase}/_sandbox/messages`)).body.messages as any[];
      const atProvider = messages.find((m) => m.reference === messageIds[0] || m.params?.reference === messageIds[0]);
      assert.ok(atProvider, 'the provider has the first message');
      const report = await http('POST', `${smsBase}/_sandbox/messages/${atProvider.id}/status`, { status: 'delivered' });
      assert.equal(report.body.reports[0].webhook.status, 200, report.text);
      assert.equal((await fetch(`${s.origin}/v1/inbound/123456789/status`, { method: 'POST', body: '{}' })).status, 404);
      const samples = await scrape(s.origin);
      assert.equal(valueOf(samples, 'parley_inbound_calls_total', { type: 'mobile', verdict: 'accepted' }), 1);
      assert.equal(valueOf(samples, 'parley_inbound_calls_total', { type: 'unknown', verdict: 'not_found' }), 1);
    });

    test('requests are labelled by route template, never by an id or a URL; unmatched paths share one label', async () => {
      assert.equal((await s.api.get(`/v1/channels/${channel.id}`)).status, 200);
      assert.equal((await s.api.get(`/v1/messages/${messageIds[1]!}`)).status, 200);
      assert.equal((await s.api.request('HEAD', `/v1/channels/${channel.id}`)).status, 200);
      assert.equal((await fetch(`${s.origin}/no/such/path/${channel.id}`)).status, 404);
      const text = await (await fetch(`${s.origin}/metrics`)).text();
      const samples = parseMetrics(text);
      assert.equal(valueOf(samples, 'parley_http_request_duration_seconds_count', { method: 'GET', route: '/v1/channels/:channel_id', status: '200' }), 1);
      assert.equal(valueOf(samples, 'parley_http_request_duration_seconds_count', { method: 'GET', route: '/v1/messages/:message_id', status: '200' }), 1);
      assert.equal(
        valueOf(samples, 'parley_http_request_duration_seconds_count', { method: 'HEAD', route: '/v1/channels/:channel_id', status: '200' }),
        1,
        'once',
      );
      assert.equal(valueOf(samples, 'parley_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' }), 1);
      for (const id of [channel.id, ...messageIds]) assert.ok(!text.includes(id), `no label names ${id}`);
      for (const sample of samples) for (const value of Object.values(sample.labels)) assert.doesNotMatch(value, /[0-9]{6,}/, `${sample.name} ${value}`);
    });

    test("a platform's 429 with Retry-After is a retry and a rate-limit wait of that long, and a 4xx platform call", async () => {
      assert.ok((await http('POST', `${smsBase}/_sandbox/faults`, { endpoint: 'messages', kind: 'rate_limit', retry_after: 30 })).status < 300);
      const res = await send(s.api, channel.id, { phone_number: '+420601909999' }, TEXT);
      assert.equal(res.status, 201, res.text);
      const samples = await eventually(
        async () => {
          const got = await scrape(s.origin);
          return valueOf(got, 'parley_send_jobs_total', { type: 'mobile', outcome: 'retry' }) === 1 ? got : undefined;
        },
        10_000,
        'one send retried',
      );
      assert.equal(valueOf(samples, 'parley_send_rate_limited_total', { type: 'mobile' }), 1);
      assert.equal(valueOf(samples, 'parley_send_rate_limit_wait_seconds_total', { type: 'mobile' }), 30);
      assert.equal(valueOf(samples, 'parley_platform_calls_total', { platform: 'mobile', status_class: '4xx' }), 1);
      assert.equal(valueOf(samples, 'parley_send_jobs_total', { type: 'mobile', outcome: 'sent' }), SENDS, 'not sent yet');
    });

    test('a receiver that answers 500 makes a webhook retry, counted as such and not as delivered', async () => {
      const failing = await Receiver.start();
      failing.answer = () => ({ status: 500, body: 'down' });
      try {
        const { services, store } = s.runtime;
        const delivered = valueOf(await scrape(s.origin), 'parley_webhook_deliveries_total', { outcome: 'delivered' });
        const hooked = await services.channels.create(s.accountId, { type: 'service_chat', name: 'Failing hook', webhook: { url: failing.url('/down') } });
        await store.transaction((tx) =>
          services.outbox.append(tx, { type: 'message_echo', channel: hooked, contactId: null, data: { channel: { id: hooked.id } } }),
        );
        services.outbox.wake();
        const samples = await eventually(
          async () => {
            const got = await scrape(s.origin);
            return valueOf(got, 'parley_webhook_deliveries_total', { outcome: 'retry' }) === 1 ? got : undefined;
          },
          10_000,
          'one webhook retry',
        );
        assert.equal(valueOf(samples, 'parley_webhook_deliveries_total', { outcome: 'delivered' }), delivered, 'none more delivered');
        assert.equal(valueOf(samples, 'parley_webhook_latency_seconds_count'), delivered, 'latency only of deliveries');
      } finally {
        await failing.close();
      }
    });

    test('web chat sessions: counted while connected, and no longer once gone', async () => {
      const PAGE = 'https://shop.example.com';
      const { body } = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' });
      assert.equal((await s.api.patch(`/v1/channels/${body.id}/settings`, { domains_whitelist: [PAGE] })).status, 200);
      const first = await openChat(s.origin, { version: 4, channelId: body.id, origin: PAGE });
      const second = await openChat(s.origin, { version: 4, channelId: body.id, origin: PAGE });
      assert.equal(valueOf(await scrape(s.origin), 'parley_webchat_sessions_connected'), 2);
      first.client.close();
      second.client.close();
      await eventually(
        async () => (valueOf(await scrape(s.origin), 'parley_webchat_sessions_connected') === 0 ? true : undefined),
        10_000,
        'no session connected',
      );
    });

    test("the process's own metrics (event loop, heap, GC), NLP outcomes, the store's pool and claim times are there", async () => {
      const samples = await scrape(s.origin);
      const names = new Set(samples.map((x) => x.name));
      for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_user_seconds_total', 'parley_webchat_sessions_connected'])
        assert.ok(names.has(name), name);
      assert.ok(
        [...names].some((n) => n.startsWith('nodejs_gc_duration_seconds')),
        'GC durations',
      );
      assert.equal(valueOf(samples, 'parley_nlp_calls_total', { outcome: 'classified' }), 0);
      for (const queue of ['webhooks', 'jobs']) {
        assert.ok((valueOf(samples, 'parley_queue_claims_total', { queue }) ?? 0) >= 1, `claims of ${queue}`);
        assert.ok((valueOf(samples, 'parley_queue_claim_seconds_total', { queue }) ?? -1) >= 0, `claim time of ${queue}`);
      }
      const total = valueOf(samples, 'parley_store_pool_connections', { state: 'total' });
      if (dialect === 'postgres') assert.ok(total !== undefined && total >= 1, 'the query pool');
      else assert.equal(total, undefined, 'SQLite has no pool');
    });
  });

  describe(`Metrics: queue depth read from the store (${dialect})`, { skip }, () => {
    let s: TestServer;
    let sms: ReturnType<typeof createSmsproviderStandIn>;
    let hook: WebhookReceiver;
    const clock = new ManualClock(Date.now());

    before(async () => {
      sms = createSmsproviderStandIn({ accessKey: ACCESS_KEY, signingKey: SIGNING_KEY, now: () => clock.now() });
      const smsBase = await sms.listen(0);
      // No workers: what is sent waits in the queues.
      s = await startTestServer(dialect, { clock, env: { SMSPROVIDER_API_URL: smsBase } });
      hook = await startWebhookReceiver();
    });
    after(async () => {
      await s?.close();
      await Promise.allSettled([sms?.close(), hook?.close()]);
    });

    test('due items and the age of the oldest per queue; nothing due is 0', async () => {
      const before = await scrape(s.origin);
      assert.equal(valueOf(before, 'parley_queue_due_items', { queue: 'webhooks' }), 0);
      assert.equal(valueOf(before, 'parley_queue_oldest_due_age_seconds', { queue: 'webhooks' }), 0);
      const res = await s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        webhook: { url: hook.url },
        provider: { type: 'smsprovider', sender_id: 'Parley', access_token: ACCESS_KEY, signing_key: SIGNING_KEY },
      });
      assert.equal(res.status, 201, res.text);
      for (let i = 0; i < 2; i++) assert.equal((await send(s.api, res.body.id, { phone_number: `+42060191000${i}` }, TEXT)).status, 201);
      clock.advance(5_000);
      const samples = await scrape(s.origin);
      assert.equal(valueOf(samples, 'parley_queue_due_items', { queue: 'webhooks' }), 2, 'two message_echo deliveries');
      assert.equal(valueOf(samples, 'parley_queue_due_items', { queue: 'jobs:send' }), 2, 'two send jobs');
      assert.equal(valueOf(samples, 'parley_queue_oldest_due_age_seconds', { queue: 'webhooks' }), 5);
      assert.equal(valueOf(samples, 'parley_queue_oldest_due_age_seconds', { queue: 'jobs:send' }), 5);
    });
  });

  describe(`Metrics: the scrape's own token and address (${dialect})`, { skip }, () => {
    let s: TestServer;
    const TOKEN = 'metrics-scraper-token-0123456789';

    before(async () => {
      s = await startTestServer(dialect, { workers: true, env: { METRICS_TOKEN: TOKEN, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' } });
    });
    after(async () => s?.close());

    test('METRICS_PORT serves /metrics and the health checks on a listener of their own, and only them; the API has no /metrics', async () => {
      const address = await s.runtime.operationsApp!.listen({ port: 0, host: '127.0.0.1' });
      assert.equal((await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404);
      assert.equal((await fetch(`${s.origin}/readyz`)).status, 200, 'the API keeps its health checks');
      const samples: Sample[] = await scrape(address, { authorization: `Bearer ${TOKEN}` });
      assert.ok(samples.some((x) => x.name === 'parley_messages_accepted_total' || x.name === 'nodejs_heap_size_used_bytes'));
      assert.deepEqual(await (await fetch(`${address}/healthz`)).json(), { status: 'ok' });
      assert.equal((await fetch(`${address}/readyz`)).status, 200);
      assert.equal((await fetch(`${address}/v1/channels`, { headers: { authorization: `Bearer ${s.token}` } })).status, 404);
    });

    test('METRICS_TOKEN: without it or with another, 401; the scrape needs no account and counts against no quota', async () => {
      const address = `http://127.0.0.1:${(s.runtime.operationsApp!.server.address() as { port: number }).port}`;
      const none = await fetch(`${address}/metrics`);
      assert.equal(none.status, 401);
      assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal((await none.json()).status.code, '401');
      assert.equal((await fetch(`${address}/metrics`, { headers: { authorization: `Bearer ${s.token}` } })).status, 401, 'an account token is not it');
      const ok = await fetch(`${address}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(ok.status, 200);
      assert.match(ok.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      assert.equal(ok.headers.get('x-ratelimit-limit'), null, 'no quota');
      await ok.text();
    });
  });
}
