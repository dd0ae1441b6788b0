import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { Receiver } from '../helpers/receiver.js';
import { channelWithWebhook } from '../helpers/factories.js';

const PER_CHANNEL = 150;

for (const { dialect, skip } of await dialects()) {
  describe(`A backlog drains on the worker's own claims, with polling off (${dialect})`, { skip }, () => {
    let s: TestServer;
    const receivers: Receiver[] = [];
    before(async () => {
      for (let i = 0; i < 3; i++) receivers.push(await Receiver.start());
      // Small caps and batches, so that draining takes many claims; no poll to fall back on.
      s = await startTestServer(dialect, { workers: true, env: { WORKER_POLL_MS: '600000', WEBHOOK_CONCURRENCY: '4', WEBHOOK_ENDPOINT_CONCURRENCY: '2' } });
    });
    after(async () => {
      for (const r of receivers) await r.close();
      await s?.close();
    });

    test(`${PER_CHANNEL * 6} events for six channels on three receivers, written in one transaction and one wake-up, all arrive once`, async () => {
      const channels = [];
      for (const r of receivers) for (const path of ['/a', '/b']) channels.push(await channelWithWebhook(s, r.url(path)));
      const { services, store } = s.runtime;
      const loaded = await Promise.all(channels.map((c) => services.channels.get(s.accountId, Number(c.id))));
      const ids = await store.transaction(async (tx) => {
        const out: string[] = [];
        for (let i = 0; i < PER_CHANNEL; i++) {
          for (const channel of loaded)
            out.push((await services.outbox.append(tx, { type: 'message_echo', channel, contactId: null, data: { channel: { id: channel.id }, i } })).eventId!);
        }
        return out;
      });
      services.outbox.wake();
      const all = () => receivers.flatMap((r) => r.eventIds());
      await receivers[0]!.waitFor(() => new Set(all()).size === ids.length, 60_000);
      assert.equal(all().length, ids.length, 'each once');
      for (const r of receivers) assert.ok(r.maxOpen <= 2, `at most 2 calls at once per receiver (saw ${r.maxOpen})`);
    });
  });
}
