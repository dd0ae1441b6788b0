import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { freePort } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';
import { openStore } from '../../src/store/open.js';
import { Receiver, expectedSignatures, sleep } from '../helpers/receiver.js';
import { accountWithToken, baseEnv, spawnServer, type ServerProcess } from '../helpers/processes.js';
import { eventually } from '../helpers/waits.js';

/** Polls /readyz until the server answers. */
async function ready(origin: string, server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${origin}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server not ready:\n${server.output()}`);
    await sleep(100);
  }
}

for (const { dialect, skip } of await dialects()) {
  describe(`At least once through a crash: SIGKILL in the middle of a load (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let receiver: Receiver;
    const servers: ServerProcess[] = [];
    before(async () => {
      db = await createTestDatabase(dialect);
      receiver = await Receiver.start();
    });
    after(async () => {
      for (const s of servers) await s.kill('SIGKILL');
      await receiver?.close();
      await db?.drop();
    });

    test('every message answered 201 reaches message_echo at least once, and no event is lost', { timeout: 180_000 }, async () => {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const env = baseEnv(db, {
        PORT: String(port),
        PUBLIC_URL: `${origin}/v1`,
        ROLE: 'all',
        LOG_LEVEL: 'warn',
        WORKER_POLL_MS: '50',
        WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      });
      const { token } = await accountWithToken(env);
      const api = new ApiClient(origin, token);

      const first = spawnServer(env);
      servers.push(first);
      await ready(origin, first);
      const created = await api.post('/v1/channels', {
        type: 'mobile',
        name: 'crash',
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: 'Parley', access_token: 'test', signing_key: 'test' },
        webhook: { url: receiver.url('/crash') },
      });
      assert.equal(created.status, 201, created.text);
      const channelId: string = created.body.id;
      const secret: string = created.body.webhook.secret;

      const accepted = new Set<string>();
      let refused = 0;
      let sending = true;
      const sendLoop = async (lane: number) => {
        for (let n = 0; sending; n++) {
          try {
            const res = await api.post('/v1/messages', {
              channel: { id: channelId },
              contact: { phone_number: `+42060112${String(lane).padStart(2, '0')}${String(n % 100).padStart(2, '0')}` },
              content: { type: 'text', payload: `lane ${lane} message ${n}` },
            });
            if (res.status === 201) accepted.add(res.body.id);
            else refused += 1;
          } catch {
            refused += 1; // the connection died with the server
            if (sending) await sleep(20);
          }
        }
      };

      // Load, then SIGKILL while messages are being accepted and webhooks queued and in flight
      // (the receiver takes 200 ms per call, two at a time, so deliveries fall behind the sends).
      receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 200 });
      const lanes = Array.from({ length: 8 }, (_, i) => sendLoop(i));
      await receiver.waitForCount(4, 20_000);
      await sleep(700);
      // Kill while the receiver holds a call, so one try is cut off whatever the machine's load:
      // from here calls are held unanswered, so a slow kill cannot let the held try be recorded.
      // Wait for a call that arrived after the switch: one still in its 200 ms delay would be
      // answered and recorded before the kill, and cut nothing off.
      const hangFrom = receiver.calls.length;
      receiver.answer = () => 'hang';
      await receiver.waitFor((calls) => calls.length > hangFrom, 20_000);
      const acceptedBeforeKill = accepted.size;
      const receivedBeforeKill = receiver.calls.length;
      const killedAt = Date.now();
      await first.kill('SIGKILL');
      assert.equal((await first.exited).signal, 'SIGKILL');
      const deadAt = Date.now();
      sending = false;
      await Promise.all(lanes);
      assert.ok(
        acceptedBeforeKill > receivedBeforeKill,
        `the kill came with deliveries still queued (${acceptedBeforeKill} accepted, ${receivedBeforeKill} received)`,
      );
      const callsBeforeKill = receiver.calls.slice(0, receivedBeforeKill).map((c) => String(c.headers['x-parley-event-id']));
      receiver.answer = () => ({ status: 200, body: 'ok' });

      // Restart on the same database and keep sending.
      const second = spawnServer(env);
      servers.push(second);
      await ready(origin, second);
      sending = true;
      const more = Array.from({ length: 4 }, (_, i) => sendLoop(10 + i));
      await sleep(500);
      sending = false;
      await Promise.all(more);

      const echoed = () => new Set(receiver.calls.filter((c) => c.body?.event === 'message_echo').map((c) => String(c.body.data.id)));
      await receiver.waitFor(() => [...accepted].every((id) => echoed().has(id)), 120_000);
      const echoes = echoed();
      const missing = [...accepted].filter((id) => !echoes.has(id));
      assert.deepEqual(missing, [], 'every 201 was delivered');

      // Let the queue settle (no delivery pending), stop the server cleanly, and compare with the store.
      const probe = await openStore(db.url);
      try {
        await eventually(
          async () => {
            const open = await probe.db
              .selectFrom('deliveries')
              .select('id')
              .where('channel_id', '=', Number(channelId))
              .where('status', '=', 'pending')
              .executeTakeFirst();
            return open ? undefined : true;
          },
          60_000,
          'no delivery pending',
        );
      } finally {
        await probe.close();
      }
      await second.kill('SIGTERM');
      let cutOff: string[] = [];
      const store = await openStore(db.url);
      try {
        const events = await store.db.selectFrom('events').select(['id', 'type']).where('channel_id', '=', Number(channelId)).execute();
        const deliveries = await store.db.selectFrom('deliveries').select(['event_id', 'status']).where('channel_id', '=', Number(channelId)).execute();
        assert.equal(deliveries.length, events.length, 'a delivery for every event');
        assert.deepEqual([...new Set(deliveries.map((d) => d.status))], ['delivered'], 'nothing pending or failed');
        const receivedIds = new Set(receiver.eventIds());
        const lost = events.filter((e) => !receivedIds.has(String(e.id)));
        assert.deepEqual(lost, [], 'every stored event reached the receiver (including sends whose answer the crash cut off)');
        assert.ok(events.length >= accepted.size);

        // Calls that reached the receiver before the kill but whose try the dead server never
        // recorded (it was waiting for the answer): it could not know they arrived, so they were
        // made again after the restart, and recorded then.
        const tries = await store.db
          .selectFrom('delivery_attempts as a')
          .innerJoin('deliveries as d', 'd.id', 'a.delivery_id')
          .select(['d.event_id', 'a.attempted_at', 'a.status_code'])
          .where('d.channel_id', '=', Number(channelId))
          .execute();
        const recordedBeforeKill = new Set(tries.filter((t) => t.attempted_at < killedAt).map((t) => String(t.event_id)));
        cutOff = [...new Set(callsBeforeKill.filter((id) => !recordedBeforeKill.has(id)))];
        assert.ok(cutOff.length > 0, `some calls were in flight at the kill (${acceptedBeforeKill} accepted, ${receivedBeforeKill} received)`);
        const recordedAfter = new Set(tries.filter((t) => t.attempted_at > killedAt && t.status_code === 200).map((t) => String(t.event_id)));
        assert.deepEqual(
          cutOff.filter((id) => !recordedAfter.has(id)),
          [],
          'each was tried again after the restart',
        );
      } finally {
        await store.close();
      }
      // Every call, duplicates included, was signed over its exact bytes.
      for (const call of receiver.calls) assert.equal(call.headers['x-hub-signature'], expectedSignatures(call.raw, secret).sha1);
      const again = new Set(receiver.calls.filter((c) => c.at > deadAt).map((c) => String(c.headers['x-parley-event-id'])));
      assert.deepEqual(
        cutOff.filter((id) => !again.has(id)),
        [],
        'the receiver got the calls in flight at the kill again',
      );
      const duplicates = receiver.calls.length - new Set(receiver.eventIds()).size;
      process.stderr.write(
        `# ${dialect}: ${accepted.size} sends accepted (${acceptedBeforeKill} before the kill), ${refused} sends cut off, ${cutOff.length} webhook calls in flight at the kill, ${receiver.calls.length} calls, ${duplicates} duplicates\n`,
      );
    });
  });
}
