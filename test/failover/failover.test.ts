import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { eventually, expectQuiet } from '../helpers/waits.js';
import { chainWhen, mailOf, makeChannels, newPhone, rbmReport, rbmTaken, smsOf, smsSent, startStandIns, type Channels, type StandIns } from './stand-ins.js';

const TEXT = { type: 'text', payload: 'Your parcel is at the door.' };

// Cross-channel failover (docs/failover.md) over real HTTP: the service with its workers, the
// rbm, SMS and mail stand-ins, the steps moved by their reports and the chain's timer.
for (const { dialect, skip, test } of await dialects()) {
  describe(`failover over real HTTP (${dialect})`, { skip }, () => {
    let s: TestServer;
    let stand: StandIns;
    let ch: Channels;

    before(async () => {
      stand = await startStandIns();
      s = await startTestServer(dialect, { workers: true, env: stand.env });
      ch = await makeChannels(s.api, stand);
    });
    after(async () => {
      await s?.close();
      await Promise.allSettled([stand?.close(), ...(ch?.hooks ?? []).map((h) => h.close())]);
    });

    const send = (phone: string, fallbacks: unknown[], extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      s.api.post('/v1/messages', { channel: { id: ch.rbm.id }, contact: { phone_number: phone }, content: TEXT, fallbacks, ...extra }, headers);

    test('rbm not delivered in time: the SMS goes out and is delivered; each step echoed and reported on its own channel, linked to the first', async () => {
      const phone = await newPhone(stand);
      const sent = await send(phone, [{ channel: { id: ch.sms.id }, when: 'not_delivered', within: 1 }]);
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      assert.equal(sent.body.failover.message_id, first);
      assert.equal(sent.body.failover.outcome, 'pending');
      assert.deepEqual(
        sent.body.failover.steps.map((x: any) => [x.step, x.channel.id, x.state]),
        [
          [0, ch.rbm.id, 'pending'],
          [1, ch.sms.id, 'waiting'],
        ],
      );
      assert.deepEqual(sent.body.failover.steps[1].when, { condition: 'not_delivered', within: 1 });
      assert.deepEqual(sent.body.metadata, { failover: { message_id: first, step: 0 } });

      const moved = await chainWhen(s, first, (c) => c.steps[1].message_id !== null, 'the SMS step started');
      assert.equal(moved.steps[0].moved_on, 'not_delivered');
      assert.ok(moved.steps[0].ended);
      const smsId = moved.steps[1].message_id as string;
      const echo = await ch.sms.hook.waitFor('message_echo', (e) => e.data.id === smsId);
      assert.deepEqual(echo.data.metadata, { failover: { message_id: first, step: 1 } });
      assert.equal(echo.data.contact.phone_number, phone);

      await stand.sms(`/messages/${await smsOf(stand, smsId)}/status`, { status: 'delivered' });
      const delivered = await ch.sms.hook.waitFor('messages_delivered', (e) => e.data.messages.some((m: any) => m.id === smsId));
      assert.deepEqual(delivered.data.messages.find((m: any) => m.id === smsId).failover, { message_id: first, step: 1 });
      const done = await chainWhen(s, first, (c) => c.outcome === 'delivered', 'the chain delivered');
      assert.equal(done.steps[1].state, 'delivered');
      assert.equal(done.steps[0].state, 'sent');
      // Get Message of the SMS shows the same chain.
      const bySms = await s.api.get(`/v1/messages/${smsId}`);
      assert.equal(bySms.body.failover.message_id, first);
      assert.equal(bySms.body.status, 'delivered');
    });

    test('rbm failed at once: the SMS goes out; the rbm failure is reported on the rbm webhook with the link', async () => {
      const phone = await newPhone(stand, false);
      const sent = await send(phone, [{ channel: { id: ch.sms.id }, when: 'failed' }]);
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      const failed = await ch.rbm.hook.waitFor('message_failed', (e) => e.data.message.id === first);
      assert.deepEqual(failed.data.message.failover, { message_id: first, step: 0 });
      const moved = await chainWhen(s, first, (c) => c.steps[1].message_id !== null, 'the SMS step started');
      assert.equal(moved.steps[0].state, 'failed');
      assert.equal(moved.steps[0].moved_on, 'failed');
      await smsOf(stand, moved.steps[1].message_id);
    });

    test('rbm delivered in time: no SMS is sent and the chain stops', async () => {
      const phone = await newPhone(stand);
      const sent = await send(phone, [{ channel: { id: ch.sms.id }, when: 'not_delivered', within: 60 }]);
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      await rbmTaken(stand, ch.rbm.agentId, phone);
      await rbmReport(stand, ch.rbm.agentId, phone, 'delivered');
      const done = await chainWhen(s, first, (c) => c.steps[1].state === 'skipped', 'the chain stopped');
      assert.equal(done.outcome, 'delivered');
      assert.equal(done.steps[0].state, 'delivered');
      assert.equal(done.steps[0].moved_on, null);
      assert.equal(done.steps[1].message_id, null);
      await expectQuiet(1500, 'no SMS step starts after the chain stopped');
      const again = await s.api.get(`/v1/messages/${first}`);
      assert.equal(again.body.failover.steps[1].message_id, null);
    });

    test('not read in time: delivered but unread, the next step starts', async () => {
      const phone = await newPhone(stand);
      const sent = await send(phone, [{ channel: { id: ch.sms.id }, when: 'not_read', within: 2 }]);
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      await rbmTaken(stand, ch.rbm.agentId, phone);
      await rbmReport(stand, ch.rbm.agentId, phone, 'delivered');
      const moved = await chainWhen(s, first, (c) => c.steps[1].message_id !== null, 'the SMS step started');
      assert.equal(moved.steps[0].moved_on, 'not_read');
      await smsOf(stand, moved.steps[1].message_id);
    });

    test('read in time: the chain stops at the read step', async () => {
      const phone = await newPhone(stand);
      const sent = await send(phone, [{ channel: { id: ch.sms.id }, when: 'not_read', within: 60 }]);
      const first = sent.body.id as string;
      await rbmTaken(stand, ch.rbm.agentId, phone);
      await rbmReport(stand, ch.rbm.agentId, phone, 'read');
      const done = await chainWhen(s, first, (c) => c.steps[1].state === 'skipped', 'the chain stopped');
      assert.equal(done.outcome, 'read');
    });

    test("a report that comes while the chain's job runs is looked at at once, not at the job's next poll", async () => {
      const phone = await newPhone(stand);
      const sent = await send(phone, [{ channel: { id: ch.sms.id }, when: 'not_read', within: 60 }]);
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      // The chain's job is held after it read the chain (the delivery, no read yet): the read
      // report comes while it runs, and the run ends with its own wait (the 30 s poll).
      const repo = s.runtime.store.failovers;
      const steps = repo.steps.bind(repo);
      let reached!: () => void;
      const running = new Promise<void>((resolve) => (reached = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding = true;
      repo.steps = async (failoverId) => {
        const rows = await steps(failoverId);
        if (holding && String(failoverId) === first) {
          holding = false;
          reached();
          await held;
        }
        return rows;
      };
      try {
        await rbmTaken(stand, ch.rbm.agentId, phone);
        await rbmReport(stand, ch.rbm.agentId, phone, 'delivered');
        await running;
        await rbmReport(stand, ch.rbm.agentId, phone, 'read');
        await ch.rbm.hook.waitFor('messages_read', (e) => e.data.contact.id === sent.body.contact.id);
      } finally {
        release();
        repo.steps = steps;
      }
      const done = await eventually(
        async () => {
          const got = await s.api.get(`/v1/messages/${first}`);
          // Skipped: the chain ended (the outcome counts the read at once, from the step's message).
          return got.body.failover.steps[1].state === 'skipped' ? got.body.failover : undefined;
        },
        10_000,
        'the chain stopped at the read, well before the next poll',
      );
      assert.equal(done.outcome, 'read');
      assert.equal(done.steps[1].message_id, null);
    });

    test('a late report of an earlier step after the fallback went out is recorded and starts nothing further', async () => {
      const phone = await newPhone(stand);
      const sent = await send(phone, [
        { channel: { id: ch.sms.id }, when: 'not_delivered', within: 1 },
        { channel: { id: ch.email.id }, when: 'failed', contact: { email: 'late@example.com' } },
      ]);
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      const moved = await chainWhen(s, first, (c) => c.steps[1].message_id !== null, 'the SMS step started');
      const smsId = moved.steps[1].message_id as string;
      const providerId = await smsOf(stand, smsId);
      // The rbm delivery arrives late: recorded on the rbm message, reported on its webhook.
      await rbmReport(stand, ch.rbm.agentId, phone, 'delivered');
      const report = await ch.rbm.hook.waitFor('messages_delivered', (e) => e.data.messages.some((m: any) => m.id === first));
      assert.deepEqual(report.data.messages.find((m: any) => m.id === first).failover, { message_id: first, step: 0 });
      const stopped = await chainWhen(s, first, (c) => c.steps[2].state === 'skipped', 'the chain stopped');
      assert.equal(stopped.outcome, 'delivered');
      assert.equal(stopped.steps[0].state, 'delivered');
      // The SMS then fails: the e-mail step, which a failure would start, does not.
      await stand.sms(`/messages/${providerId}/status`, { status: 'delivery_failed' });
      await ch.sms.hook.waitFor('message_failed', (e) => e.data.message.id === smsId);
      await expectQuiet(1500, 'no e-mail step starts after the late delivery');
      const after = await s.api.get(`/v1/messages/${first}`);
      assert.equal(after.body.failover.steps[2].message_id, null);
      assert.equal(after.body.failover.outcome, 'delivered');
      assert.equal(ch.email.hook.events.filter((e) => e.event === 'message_echo' && e.data.contact.email === 'late@example.com').length, 0);
    });

    test('a chain of three ending in e-mail: rbm refused, the SMS failed, the mail delivered', async () => {
      const phone = await newPhone(stand, false);
      const sent = await send(phone, [
        { channel: { id: ch.sms.id }, when: 'failed' },
        { channel: { id: ch.email.id }, when: 'failed', contact: { email: 'three@example.com' }, content: { type: 'text', payload: 'Your parcel (by mail).' } },
      ]);
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      const atSms = await chainWhen(s, first, (c) => c.steps[1].message_id !== null, 'the SMS step started');
      const smsId = atSms.steps[1].message_id as string;
      await stand.sms(`/messages/${await smsOf(stand, smsId)}/status`, { status: 'delivery_failed' });
      const atMail = await chainWhen(s, first, (c) => c.steps[2].message_id !== null, 'the e-mail step started');
      assert.equal(atMail.steps[1].moved_on, 'failed');
      const mailId = atMail.steps[2].message_id as string;
      const echo = await ch.email.hook.waitFor('message_echo', (e) => e.data.id === mailId);
      assert.equal(echo.data.contact.email, 'three@example.com');
      assert.equal(echo.data.content.payload, 'Your parcel (by mail).');
      assert.deepEqual(echo.data.metadata, { failover: { message_id: first, step: 2 } });
      const mail = await mailOf(stand, mailId);
      await stand.mail(`/messages/${encodeURIComponent(mail)}/events`, { event: 'delivered' });
      const done = await chainWhen(s, first, (c) => c.outcome === 'delivered', 'the chain delivered');
      assert.deepEqual(
        done.steps.map((x: any) => x.state),
        ['failed', 'failed', 'delivered'],
      );
    });

    test('a step a later channel cannot carry is refused at Send Message (422 naming the step and the field); nothing is stored', async () => {
      const phone = await newPhone(stand);
      const location = { type: 'location', payload: { latitude: 49.19, longitude: 16.6 } };
      const refused = await send(phone, [{ channel: { id: ch.sms.id }, when: 'failed' }], { content: location });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.body.errors[0].field, 'fallbacks[0].content.type');
      // Its own content makes it carried.
      const own = await send(phone, [{ channel: { id: ch.sms.id }, when: 'failed', content: { type: 'text', payload: 'At 49.19, 16.6' } }], {
        content: location,
      });
      assert.equal(own.status, 201, own.text);

      const noAddress = await send(phone, [{ channel: { id: ch.email.id }, when: 'failed' }]);
      assert.equal(noAddress.status, 422, noAddress.text);
      assert.equal(noAddress.body.errors[0].field, 'fallbacks[0].contact');
      const badAddress = await send(phone, [{ channel: { id: ch.email.id }, when: 'failed', contact: { phone_number: phone } }]);
      assert.equal(badAddress.status, 422, badAddress.text);
      assert.equal(badAddress.body.errors[0].field, 'fallbacks[0].contact.phone_number');
      const noReads = await send(phone, [
        { channel: { id: ch.sms.id }, when: 'failed' },
        { channel: { id: ch.email.id }, when: 'not_read', within: 5, contact: { email: 'x@example.com' } },
      ]);
      assert.equal(noReads.status, 422, noReads.text);
      assert.equal(noReads.body.errors[0].field, 'fallbacks[1].when');
      const noWithin = await send(phone, [{ channel: { id: ch.sms.id }, when: 'not_delivered' }]);
      assert.equal(noWithin.body.errors[0].field, 'fallbacks[0].within');
      const unknown = await send(phone, [{ channel: { id: '999999' }, when: 'failed' }]);
      assert.equal(unknown.body.errors[0].field, 'fallbacks[0].channel.id');
      const tooShort = await send(phone, [{ channel: { id: ch.sms.id }, when: 'not_delivered', within: 0 }]);
      assert.equal(tooShort.status, 422, tooShort.text);
      assert.equal(tooShort.body.errors[0].field, 'fallbacks[0].within');
    });

    test('an idempotent retry of the whole request answers the same chain and starts nothing twice', async () => {
      const phone = await newPhone(stand, false);
      const fallbacks = [{ channel: { id: ch.sms.id }, when: 'failed' }];
      const key = `failover-${dialect}-${phone}`;
      const sent = await send(phone, fallbacks, {}, { 'Idempotency-Key': key });
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      const moved = await chainWhen(s, first, (c) => c.steps[1].message_id !== null, 'the SMS step started');
      const again = await send(phone, fallbacks, {}, { 'Idempotency-Key': key });
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.body.id, first);
      assert.equal(again.body.failover.steps[1].message_id, moved.steps[1].message_id);
      const other = await send(phone, [{ channel: { id: ch.sms.id }, when: 'not_delivered', within: 5 }], {}, { 'Idempotency-Key': key });
      assert.equal(other.status, 422, other.text);
      await smsOf(stand, moved.steps[1].message_id);
      assert.equal(
        ((await stand.sms('/messages')).body.messages as Array<{ reference: string }>).filter((m) => m.reference === moved.steps[1].message_id).length,
        1,
      );
      assert.equal(await smsSent(stand, first), false);
    });

    test('a step started but not gone out when an earlier step is reported delivered is cancelled and never sent', async () => {
      const phone = await newPhone(stand);
      // The provider is down for the SMS step's first try: its message waits for the retry.
      assert.equal((await stand.sms('/faults', { kind: 'server_error', endpoint: 'messages', status: 503 })).status, 201);
      const sent = await send(phone, [{ channel: { id: ch.sms.id }, when: 'not_delivered', within: 1 }]);
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      const moved = await chainWhen(s, first, (c) => c.steps[1].message_id !== null, 'the SMS step started');
      const smsId = moved.steps[1].message_id as string;
      const store = s.runtime.store;
      const smsJob = () =>
        store.db.selectFrom('jobs').select(['status', 'attempts']).where('message_id', '=', Number(smsId)).where('kind', '=', 'send').executeTakeFirst();
      await eventually(
        async () => ((await smsJob())?.attempts === 1 && (await smsJob())?.status === 'pending' ? true : undefined),
        20_000,
        'the SMS waits for its retry',
      );
      await rbmReport(stand, ch.rbm.agentId, phone, 'delivered');
      const failed = await ch.sms.hook.waitFor('message_failed', (e) => e.data.message.id === smsId);
      assert.deepEqual(failed.data.message.failover, { message_id: first, step: 1 });
      const stopped = await chainWhen(s, first, (c) => c.steps[1].state === 'cancelled', 'the SMS step cancelled');
      assert.equal(stopped.outcome, 'delivered');
      // Its retry comes and sends nothing.
      await eventually(async () => ((await smsJob())?.status === 'done' ? true : undefined), 30_000, 'the SMS send job ended');
      assert.equal(await smsSent(stand, smsId), false);
    });

    test('without fallbacks the answer is the plain message shape', async () => {
      const phone = await newPhone(stand);
      const plain = await s.api.post('/v1/messages', { channel: { id: ch.rbm.id }, contact: { phone_number: phone }, content: TEXT });
      assert.equal(plain.status, 201, plain.text);
      assert.equal('failover' in plain.body, false);
      assert.equal('metadata' in plain.body, false);
      const got = await s.api.get(`/v1/messages/${plain.body.id}`);
      assert.equal('failover' in got.body, false);
    });
  });
}
