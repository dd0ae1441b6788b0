import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { eventually, expectQuiet } from '../helpers/waits.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import { http, type JsonAnswer } from '../connectors/helpers/harness.js';
import { createChannel, send } from '../api/messages-fixtures.js';

/**
 * The send worker over real HTTP against the smsprovider stand-in, on both stores: sends, status
 * reports, retries on the injected clock (the service's clock only moves when a test moves it;
 * the stand-in signs its callbacks on it too), 429 with Retry-After, permanent
 * failures, jobs of deleted channels and contacts, the throttle per channel, and the types that
 * cannot send yet.
 */

const ACCESS_KEY = 'live_sendworkertestkey0000001';
const SIGNING_KEY = 'provider-signing-key-of-the-send-tests';
const TEXT = { type: 'text', payload: 'Your parcel is on its way.' };

for (const { dialect, skip } of await dialects()) {
  describe(`Send worker: mobile sends through the queue (${dialect})`, { skip }, () => {
    let s: TestServer;
    let sms: ReturnType<typeof createSmsproviderStandIn>;
    let smsBase: string;
    const clock = new ManualClock(Date.now());
    const hooks: WebhookReceiver[] = [];
    let numbers = 0;

    const sandbox = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<JsonAnswer> =>
      http(method, `${smsBase}/_sandbox${path}`, body);

    before(async () => {
      // The stand-in signs its callbacks on the service's clock, which the connector checks them against.
      sms = createSmsproviderStandIn({ accessKey: ACCESS_KEY, signingKey: SIGNING_KEY, now: () => clock.now() });
      smsBase = await sms.listen(0);
      s = await startTestServer(dialect, {
        clock,
        workers: true,
        env: { SMSPROVIDER_API_URL: smsBase, PLATFORM_TIMEOUT_MS: '15000', WORKER_POLL_MS: '25', WEBHOOK_RETRY_SCHEDULE: '1,1,1' },
      });
    });
    after(async () => {
      await s?.close();
      await Promise.allSettled([sms?.close(), ...hooks.map((h) => h.close())]);
    });

    /** A production mobile channel with its own webhook receiver. */
    async function connect(provider: Record<string, unknown> = {}): Promise<{ id: string; hook: WebhookReceiver }> {
      const hook = await startWebhookReceiver();
      hooks.push(hook);
      const res = await s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        webhook: { url: hook.url },
        provider: { type: 'smsprovider', sender_id: 'Parley', access_token: ACCESS_KEY, signing_key: SIGNING_KEY, ...provider },
      });
      assert.equal(res.status, 201, res.text);
      hook.secret = res.body.webhook.secret;
      return { id: res.body.id, hook };
    }

    const nextNumber = () => `+4206019${String(++numbers).padStart(5, '0')}`;

    async function sendOne(channel: string, number = nextNumber()): Promise<{ id: string; contactId: string }> {
      const res = await send(s.api, channel, { phone_number: number }, TEXT);
      assert.equal(res.status, 201, res.text);
      return { id: res.body.id, contactId: res.body.contact.id };
    }

    /** What the stand-in got with our message id as its reference. */
    async function atProvider(messageId: string): Promise<any[]> {
      const res = await sandbox('/messages');
      return (res.body.messages as any[]).filter((m) => m.reference === messageId || m.params?.reference === messageId);
    }

    const providerHas = (messageId: string) =>
      eventually(async () => ((await atProvider(messageId)).length > 0 ? true : undefined), 10_000, `message ${messageId} at the provider`);

    async function jobOf(messageId: string) {
      return s.runtime.store.db.selectFrom('jobs').selectAll().where('message_id', '=', Number(messageId)).executeTakeFirst();
    }

    const jobReaches = (messageId: string, check: (job: NonNullable<Awaited<ReturnType<typeof jobOf>>>) => boolean, what: string) =>
      eventually(
        async () => {
          const job = await jobOf(messageId);
          return job && check(job) ? job : undefined;
        },
        10_000,
        what,
      );

    async function getMessage(id: string): Promise<any> {
      const res = await s.api.get(`/v1/messages/${id}`);
      assert.equal(res.status, 200, res.text);
      return res.body;
    }

    const fault = async (body: Record<string, unknown>) => assert.equal((await sandbox('/faults', { endpoint: 'messages', ...body })).status < 300, true);

    test('a queued message is sent once with our id as its reference, then `sent` with the provider id; a delivery report makes it `delivered` once', async () => {
      // One a second: the first message takes the second's token, so the next one is still
      // pending when read, until the clock moves.
      const { id: channel, hook } = await connect({ send_rate: 1 });
      await providerHas((await sendOne(channel)).id);
      const sent = await sendOne(channel);
      assert.equal((await getMessage(sent.id)).status, 'pending');
      clock.advance(1_000);
      await providerHas(sent.id);
      const job = await jobReaches(sent.id, (j) => j.status === 'done', 'job done');
      assert.equal(Number(job.attempts), 1);
      const [atSp] = await atProvider(sent.id);
      const row = await s.runtime.store.messages.find(s.accountId, Number(sent.id));
      assert.equal(row?.status, 'sent');
      assert.equal(row?.external_id, atSp.id);
      assert.equal((await getMessage(sent.id)).status, 'sent');

      const receivedAt = clock.now();
      const report = await sandbox(`/messages/${atSp.id}/status`, { status: 'delivered' });
      assert.equal(report.status, 200, report.text);
      assert.equal(report.body.reports[0].webhook.status, 200, report.text);
      const delivered = await hook.waitFor('messages_delivered');
      assert.ok(delivered.signatureValid);
      assert.deepEqual(delivered.data.messages, [{ id: sent.id }]);
      assert.equal(delivered.data.contact.id, sent.contactId);
      assert.equal(delivered.data.delivered_timestamp, new Date(receivedAt).toISOString(), 'when the service got the report');
      const got = await getMessage(sent.id);
      assert.equal(got.status, 'delivered');
      assert.equal(got.delivered, new Date(receivedAt).toISOString());

      // The same report again (the provider's retry) and a late failure report change nothing.
      assert.equal((await sandbox(`/messages/${atSp.id}/status`, { status: 'delivered' })).body.reports[0].webhook.status, 200);
      assert.equal((await sandbox(`/messages/${atSp.id}/status`, { status: 'delivery_failed' })).body.reports[0].webhook.status, 200);
      const events = await s.runtime.store.db.selectFrom('events').select('type').where('channel_id', '=', Number(channel)).execute();
      // (The first message's echo, then this one's echo and its one delivery.)
      assert.deepEqual(events.map((e) => e.type).sort(), ['message_echo', 'message_echo', 'messages_delivered']);
      assert.equal((await getMessage(sent.id)).status, 'delivered');
      assert.equal((await atProvider(sent.id)).length, 1);
    });

    test('a report that comes before the send was recorded finds the message by its reference: delivered once, failed once, never sent twice', async () => {
      const { id: channel, hook } = await connect();
      // The provider takes each message at once and answers 3 s later: its reports come first.
      await fault({ kind: 'slow_answer', delay_ms: 3000, count: 2 });
      const early = await sendOne(channel);
      const failing = await sendOne(channel);
      await providerHas(early.id);
      await providerHas(failing.id);
      const [a] = await atProvider(early.id);
      const [b] = await atProvider(failing.id);
      assert.equal((await getMessage(early.id)).status, 'pending', 'the provider has not answered yet');
      assert.equal((await sandbox(`/messages/${a.id}/status`, { status: 'delivered' })).body.reports[0].webhook.status, 200);
      assert.equal((await sandbox(`/messages/${b.id}/status`, { status: 'delivery_failed' })).body.reports[0].webhook.status, 200);
      const delivered = await hook.waitFor('messages_delivered');
      assert.deepEqual(delivered.data.messages, [{ id: early.id }]);
      const failed = await hook.waitFor('message_failed');
      assert.deepEqual(failed.data.message, { id: failing.id });
      assert.equal(failed.data.error.code, 1);
      // The answers come; the jobs end done and change neither message.
      await jobReaches(early.id, (j) => j.status === 'done', 'first job done');
      await jobReaches(failing.id, (j) => j.status === 'done', 'second job done');
      const got = await getMessage(early.id);
      assert.equal(got.status, 'delivered');
      const row = await s.runtime.store.messages.find(s.accountId, Number(early.id));
      assert.equal(row?.external_id, a.id);
      assert.equal((await getMessage(failing.id)).status, 'failed');
      assert.equal((await atProvider(early.id)).length, 1);
      assert.equal((await atProvider(failing.id)).length, 1);
      const events = await s.runtime.store.db.selectFrom('events').select('type').where('channel_id', '=', Number(channel)).execute();
      assert.deepEqual(events.map((e) => e.type).sort(), ['message_echo', 'message_echo', 'message_failed', 'messages_delivered']);
    });

    test('delivery_failed and expired reports become message_failed with codes 1 and 4, once each', async () => {
      const { id: channel, hook } = await connect();
      const failing = await sendOne(channel);
      const expiring = await sendOne(channel);
      await providerHas(failing.id);
      await providerHas(expiring.id);
      await jobReaches(failing.id, (j) => j.status === 'done', 'first sent');
      await jobReaches(expiring.id, (j) => j.status === 'done', 'second sent');
      const [a] = await atProvider(failing.id);
      const [b] = await atProvider(expiring.id);
      for (let i = 0; i < 2; i++) {
        assert.equal((await sandbox(`/messages/${a.id}/status`, { status: 'delivery_failed', status_error_code: 7 })).body.reports[0].webhook.status, 200);
        assert.equal((await sandbox(`/messages/${b.id}/status`, { status: 'expired' })).body.reports[0].webhook.status, 200);
      }
      const one = await hook.waitFor('message_failed', (e) => e.data.message.id === failing.id);
      const four = await hook.waitFor('message_failed', (e) => e.data.message.id === expiring.id);
      assert.deepEqual(one.data.error, { code: 1, message: 'Error while processing the request.' });
      assert.deepEqual(four.data.error, { code: 4, message: 'Message failed to be delivered within 24 hours.' });
      assert.deepEqual(one.data.message, { id: failing.id });
      assert.equal(one.data.contact.id, failing.contactId);
      assert.match(one.data.contact.phone_number, /^\+420/);
      assert.deepEqual(one.data.channel.id, channel);
      const gotOne = await getMessage(failing.id);
      assert.equal(gotOne.status, 'failed');
      assert.equal(gotOne.error.code, 1);
      assert.equal(gotOne.delivered, null);
      assert.equal((await getMessage(expiring.id)).error.code, 4);
      const failed = await s.runtime.store.db
        .selectFrom('events')
        .select('id')
        .where('channel_id', '=', Number(channel))
        .where('type', '=', 'message_failed')
        .execute();
      assert.equal(failed.length, 2, 'a repeated report makes no second event');
      // A delivery report after the failure changes nothing either.
      await sandbox(`/messages/${a.id}/status`, { status: 'delivered' });
      assert.equal((await getMessage(failing.id)).status, 'failed');
    });

    test('a provider error is retried with backoff on the injected clock; the provider down, then back, sends exactly once', async () => {
      const { id: channel } = await connect();
      await fault({ kind: 'server_error', count: 1 });
      const sentAt = clock.now();
      const msg = await sendOne(channel);
      const first = await jobReaches(msg.id, (j) => j.status === 'pending' && Number(j.attempts) === 1, 'first attempt failed');
      const wait1 = Number(first.run_at) - sentAt;
      assert.ok(wait1 >= 5_000 && wait1 <= 10_000, `the first retry 5-10 s later (${wait1})`);
      assert.match(String(first.last_error), /internal error|500/);
      assert.equal((await getMessage(msg.id)).status, 'pending');

      // Still down at the second attempt: the wait doubles.
      // (A second attempt first looks the message up by its reference: that call fails, nothing is sent.)
      await fault({ kind: 'server_error', count: 1 });
      clock.advance(wait1);
      const second = await jobReaches(msg.id, (j) => j.status === 'pending' && Number(j.attempts) === 2, 'second attempt failed');
      const wait2 = Number(second.run_at) - clock.now();
      assert.ok(wait2 >= 10_000 && wait2 <= 20_000, `the second retry 10-20 s later (${wait2})`);
      assert.equal((await atProvider(msg.id)).length, 0);

      // Back up: the third attempt looks the message up (not there) and sends it.
      clock.advance(wait2);
      await jobReaches(msg.id, (j) => j.status === 'done', 'sent on the third attempt');
      assert.equal(Number((await jobOf(msg.id))!.attempts), 3);
      assert.equal((await atProvider(msg.id)).length, 1);
      assert.equal((await getMessage(msg.id)).status, 'sent');
    });

    test('a 429 with Retry-After is waited for exactly, and pauses that channel only', async () => {
      const slowed = await connect();
      const other = await connect();
      await fault({ kind: 'rate_limit', retry_after: 30 });
      const limited = await sendOne(slowed.id);
      const job = await jobReaches(limited.id, (j) => j.status === 'pending' && Number(j.attempts) === 1, 'rate limited');
      const wait = Number(job.run_at) - clock.now();
      assert.ok(wait >= 30_000 && wait <= 33_000, `Retry-After honoured (${wait})`);
      // Another message to the paused channel waits; one to another channel goes at once.
      const waiting = await sendOne(slowed.id);
      const going = await sendOne(other.id);
      await providerHas(going.id);
      await jobReaches(going.id, (j) => j.status === 'done', 'other channel sent');
      assert.equal((await atProvider(waiting.id)).length, 0, 'the paused channel sent nothing meanwhile');
      assert.equal((await getMessage(waiting.id)).status, 'pending');

      // The pause ends exactly at Retry-After: one of the two goes then. The other follows at the
      // channel's rate (30 a second), which needs the clock to move on unless Retry-After's jitter
      // already covered a token: a second more gives it one.
      clock.advance(wait);
      await eventually(
        async () => ((await atProvider(limited.id)).length + (await atProvider(waiting.id)).length > 0 ? true : undefined),
        10_000,
        "one of the paused channel's messages sent when the pause ended",
      );
      clock.advance(1000);
      await providerHas(limited.id);
      await providerHas(waiting.id);
      assert.equal((await atProvider(limited.id)).length, 1);
      assert.equal((await atProvider(waiting.id)).length, 1);
    });

    test('a permanent refusal fails the message at once: message_failed code 1 with the state, in one transaction', async () => {
      const { id: channel, hook } = await connect();
      await fault({ kind: 'error', status: 422, code: 10, message: 'invalid originator' });
      const msg = await sendOne(channel);
      const failed = await hook.waitFor('message_failed', (e) => e.data.message.id === msg.id);
      assert.deepEqual(failed.data.error, { code: 1, message: 'Error while processing the request.' });
      const job = await jobReaches(msg.id, (j) => j.status === 'failed', 'job failed');
      assert.equal(Number(job.attempts), 1);
      const got = await getMessage(msg.id);
      assert.equal(got.status, 'failed');
      assert.deepEqual(got.error, { code: 1, message: 'invalid originator' });
      assert.equal((await atProvider(msg.id)).length, 0);
    });

    test('the last attempt fails the message; a retry past the 24 hours fails it with code 4', async () => {
      const { id: channel, hook } = await connect();
      await fault({ kind: 'server_error', count: 1 });
      const msg = await sendOne(channel);
      await jobReaches(msg.id, (j) => j.status === 'pending' && Number(j.attempts) === 1, 'first attempt failed');
      // 23 h 59 min 59 s later the provider is still down: the next retry would come after the expiry.
      await fault({ kind: 'server_error', count: 1 });
      clock.advance(24 * 60 * 60_000 - 1_000);
      const failed = await hook.waitFor('message_failed', (e) => e.data.message.id === msg.id);
      assert.equal(failed.data.error.code, 4);
      assert.equal((await jobReaches(msg.id, (j) => j.status === 'failed', 'job failed')).status, 'failed');
      assert.equal((await getMessage(msg.id)).status, 'failed');
    });

    test('the jobs of a deleted contact or channel are dropped, never sent', async () => {
      const { id: channel } = await connect();
      await fault({ kind: 'server_error', count: 2 });
      const toContact = await sendOne(channel);
      const toChannel = await sendOne(channel);
      await jobReaches(toContact.id, (j) => j.status === 'pending' && Number(j.attempts) === 1, 'contact message waits');
      await jobReaches(toChannel.id, (j) => j.status === 'pending' && Number(j.attempts) === 1, 'channel message waits');
      assert.equal((await s.api.delete(`/v1/channels/${channel}/contacts/${toContact.contactId}`)).status, 204);
      assert.equal(await jobOf(toContact.id), undefined, 'the job went with the contact');
      assert.equal((await s.api.delete(`/v1/channels/${channel}`)).status, 204);
      assert.equal(await jobOf(toChannel.id), undefined, 'the job went with the channel');
      // A later message to another channel runs: the worker has moved past them.
      const { id: next } = await connect();
      clock.advance(60_000);
      const later = await sendOne(next);
      await providerHas(later.id);
      assert.equal((await atProvider(toContact.id)).length, 0);
      assert.equal((await atProvider(toChannel.id)).length, 0);
    });

    test("a burst to one channel drains at the type's rate (30 a second) while other channels keep going", async () => {
      const burst = await connect();
      const other = await connect();
      const ids: string[] = [];
      // The clock stands still: one second of the rate goes, the rest waits for the clock.
      const sends = Array.from({ length: 40 }, () => sendOne(burst.id));
      for (const m of await Promise.all(sends)) ids.push(m.id);
      const others = await Promise.all(Array.from({ length: 3 }, () => sendOne(other.id)));
      for (const m of others) await providerHas(m.id);
      const sentOf = async () => {
        const refs = new Set(((await sandbox('/messages')).body.messages as any[]).map((m) => m.reference ?? m.params?.reference));
        return ids.filter((id) => refs.has(id)).length;
      };
      await eventually(async () => ((await sentOf()) === 30 ? true : undefined), 10_000, '30 of the burst sent');
      // Nothing signals "not sent": give the worker a few of its rechecks to overshoot, if it would.
      await expectQuiet(600, 'the worker sends no more than the rate while the clock stands still');
      assert.equal(await sentOf(), 30, 'no more than the rate while the clock stands still');
      clock.advance(1_000);
      await eventually(async () => ((await sentOf()) === 40 ? true : undefined), 10_000, 'the rest after a second');
    });
    test("a channel with its own send_rate drains at that rate instead of the type's", async () => {
      const slow = await connect({ send_rate: 5 });
      const ids = await Promise.all(Array.from({ length: 8 }, () => sendOne(slow.id).then((m) => m.id)));
      const sentOf = async () => {
        const refs = new Set(((await sandbox('/messages')).body.messages as any[]).map((m) => m.reference ?? m.params?.reference));
        return ids.filter((id) => refs.has(id)).length;
      };
      await eventually(async () => ((await sentOf()) === 5 ? true : undefined), 10_000, '5 sent');
      await expectQuiet(600, "the worker sends no more than the channel's own rate while the clock stands still");
      assert.equal(await sentOf(), 5, 'no more than its own rate while the clock stands still');
      clock.advance(1_000);
      await eventually(async () => ((await sentOf()) === 8 ? true : undefined), 10_000, 'the rest after a second');
    });
  });

  describe(`Send jobs that end without running: their messages fail (${dialect})`, { skip }, () => {
    let s: TestServer;
    let sms: ReturnType<typeof createSmsproviderStandIn>;
    let smsBase: string;
    let hook: WebhookReceiver;
    let channel: string;
    const clock = new ManualClock(Date.now());
    let numbers = 0;

    before(async () => {
      sms = createSmsproviderStandIn({ accessKey: ACCESS_KEY, signingKey: SIGNING_KEY, now: () => clock.now() });
      smsBase = await sms.listen(0);
      // No worker runs until a test starts them: the jobs wait as if every worker were down.
      s = await startTestServer(dialect, {
        clock,
        env: { SMSPROVIDER_API_URL: smsBase, PLATFORM_TIMEOUT_MS: '15000', WORKER_POLL_MS: '25', WEBHOOK_RETRY_SCHEDULE: '1,1,1' },
      });
      hook = await startWebhookReceiver();
      const res = await s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        webhook: { url: hook.url },
        provider: { type: 'smsprovider', sender_id: 'Parley', access_token: ACCESS_KEY, signing_key: SIGNING_KEY },
      });
      assert.equal(res.status, 201, res.text);
      hook.secret = res.body.webhook.secret;
      channel = res.body.id;
    });
    after(async () => {
      await s?.close();
      await Promise.allSettled([sms?.close(), hook?.close()]);
    });

    async function sendOne(): Promise<string> {
      const res = await send(s.api, channel, { phone_number: `+4206018${String(++numbers).padStart(5, '0')}` }, TEXT);
      assert.equal(res.status, 201, res.text);
      return res.body.id;
    }

    const job = (messageId: string) => s.runtime.store.db.selectFrom('jobs').selectAll().where('message_id', '=', Number(messageId)).executeTakeFirstOrThrow();

    test("a job past its expiry that no worker ran: the first sweep fails its message with code 4 and message_failed, once; a job whose last attempt's process died fails with code 1, never sent", async () => {
      const lost = await sendOne();
      // `lost`: its last attempt claimed under a lease that ran out, by a process that never finished it.
      // (Its expiry moved past the test's 24 hours, so that it ends for its attempts, not its age.)
      await s.runtime.store.db
        .updateTable('jobs')
        .set({ attempts: 19, expires_at: clock.now() + 48 * 60 * 60_000 })
        .where('message_id', '=', Number(lost))
        .execute();
      const now = Date.now();
      const claimed = await s.runtime.store.jobQueue.claim({
        kinds: ['send'],
        now: clock.now(),
        leaseNow: now,
        leaseUntil: now - 1,
        leaseId: 1,
        instanceId: s.runtime.store.instanceId,
        limit: 1,
      });
      assert.deepEqual(
        claimed.map((j) => [String(j.messageId), j.attempts, j.maxAttempts]),
        [[lost, 20, 20]],
      );
      const stale = await sendOne();
      // 24 hours later the workers start; their first sweep ends both jobs.
      clock.advance(24 * 60 * 60_000);
      s.runtime.startWorkers();
      const expired = await hook.waitFor('message_failed', (e) => e.data.message.id === stale);
      assert.deepEqual(expired.data.error, { code: 4, message: 'Message failed to be delivered within 24 hours.' });
      const exhausted = await hook.waitFor('message_failed', (e) => e.data.message.id === lost);
      assert.deepEqual(exhausted.data.error, { code: 1, message: 'Error while processing the request.' });
      for (const [id, code, status] of [
        [stale, 4, 'expired'],
        [lost, 1, 'failed'],
      ] as const) {
        const got = await s.api.get(`/v1/messages/${id}`);
        assert.equal(got.body.status, 'failed', id);
        assert.equal(got.body.error.code, code);
        assert.equal((await job(id)).status, status);
      }
      const sent = ((await http('GET', `${smsBase}/_sandbox/messages`)).body.messages as any[]).filter((m) =>
        [stale, lost].includes(m.reference ?? m.params?.reference),
      );
      assert.equal(sent.length, 0, 'neither was sent');
      // Told once: a later sweep finds nothing more.
      await expectQuiet(300, 'a later sweep tells no failure a second time');
      const failures = hook.events.filter((e) => e.event === 'message_failed');
      assert.equal(failures.length, 2);
    });
  });

  describe(`Send Message on asynchronous types in test mode (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(dialect);
    });
    after(async () => s?.close());

    // Every asynchronous type has a sender now (email last): the 502 of a type without one is covered by the API suites' fake registries.
    test('rbm and appmsg_business_messages in test mode answer 201', async () => {
      for (const type of ['rbm', 'appmsg_business_messages'] as const) {
        const channel = await createChannel(s.api, type, 'test');
        const res = await send(s.api, channel, { phone_number: '+420601123456' }, TEXT);
        assert.equal(res.status, 201, `${type} test: ${res.text}`);
      }
    });
  });
}
