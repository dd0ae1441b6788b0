import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { eventually } from '../helpers/waits.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import type { ApiClient } from '../helpers/api-client.js';
import type { NlpTrainingData } from '../../src/schemas/nlp.js';

/**
 * Built-in NLP trainings run apart from the send jobs: their own slot (one per process by
 * default), one account's trainings one at a time with the accounts taking turns, and a memory
 * bound on each training's thread. The trainings here are held by the test (a gate per training,
 * named by its only intent) so what runs at once can be seen.
 */

const ACCESS_KEY = 'live_trainingqueuetestkey001';

const training = (name: string): Record<string, unknown> => ({
  kind: 'builtin',
  languages: ['en'],
  intents: [{ id: name, utterances: { en: [`hello ${name}`] } }],
});

for (const { dialect, skip, test } of await dialects()) {
  describe(`NLP trainings beside sends (${dialect})`, { skip }, () => {
    let s: TestServer;
    let sms: ReturnType<typeof createSmsproviderStandIn>;
    /** Names of trainings in the order they started. */
    const started: string[] = [];
    const running = new Set<string>();
    let mostAtOnce = 0;
    const gates = new Map<string, () => void>();
    const release = (name: string) => {
      const open = gates.get(name);
      assert.ok(open, `training ${name} is running`);
      open();
    };

    before(async () => {
      sms = createSmsproviderStandIn({ accessKey: ACCESS_KEY, signingKey: 'signing-key' });
      const smsBase = await sms.listen(0);
      s = await startTestServer(dialect, {
        workers: true,
        env: { SMSPROVIDER_API_URL: smsBase, WORKER_POLL_MS: '50' },
        trainNlpModel: async (data: NlpTrainingData) => {
          const name = data.intents[0]!.id;
          started.push(name);
          running.add(name);
          mostAtOnce = Math.max(mostAtOnce, running.size);
          await new Promise<void>((resolve) => gates.set(name, resolve));
          running.delete(name);
          return JSON.stringify({ trained: name });
        },
      });
    });
    after(async () => {
      for (const open of gates.values()) open();
      await s?.close();
      await sms?.close();
    });

    async function channelWithTraining(api: ApiClient, name: string): Promise<string> {
      const made = await api.post('/v1/channels', { type: 'service_chat', name, webhook: { url: 'https://example.com/hook' } });
      assert.equal(made.status, 201, made.text);
      const put = await api.request('PUT', `/v1/channels/${made.body.id}/nlp`, training(name));
      assert.ok(put.status === 200 || put.status === 201, put.text);
      return made.body.id as string;
    }

    const startedCount = (n: number) => eventually(async () => (started.length >= n ? true : undefined), 15_000, `${n} trainings started`);

    test("two accounts' trainings take turns, one at a time, whatever one account queued first", async () => {
      const other = await s.newAccount();
      for (const name of ['a1', 'a2', 'a3']) await channelWithTraining(s.api, name);
      for (const name of ['b1', 'b2']) await channelWithTraining(other.api, name);
      await startedCount(1);
      for (let i = 1; i < 5; i++) {
        release(started[i - 1]!);
        await startedCount(i + 1);
      }
      release(started[4]!);
      assert.deepEqual(started, ['a1', 'b1', 'a2', 'b2', 'a3']);
      assert.equal(mostAtOnce, 1, 'one training at a time in a process by default');
    });

    test("32 trainings of one account, all held, leave every send job's room free", async () => {
      const busy = await s.newAccount();
      const first = started.length;
      const names = Array.from({ length: 32 }, (_, i) => `c${i}`);
      const channels: string[] = [];
      for (const name of names) channels.push(await channelWithTraining(busy.api, name));
      await startedCount(first + 1);

      const mobile = await busy.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        webhook: { url: 'https://example.com/hook' },
        provider: { type: 'smsprovider', sender_id: '+420601000222', access_token: ACCESS_KEY, signing_key: 'signing-key' },
      });
      assert.equal(mobile.status, 201, mobile.text);
      const sent = await busy.api.post('/v1/messages', {
        channel: { id: mobile.body.id },
        contact: { phone_number: '+420777000123' },
        content: { type: 'text', payload: 'Your order is ready.' },
      });
      assert.equal(sent.status, 201, sent.text);
      await eventually(async () => ((await busy.api.get(`/v1/messages/${sent.body.id}`)).body.status === 'sent' ? true : undefined), 15_000, 'the SMS sent');
      assert.equal(running.size, 1, 'the other 31 trainings wait in the store');

      // Let them all through: each channel's model ends ready.
      for (let i = 0; i < names.length; i++) {
        await startedCount(first + i + 1);
        release(started[first + i]!);
      }
      for (const id of channels) {
        await eventually(
          async () => ((await busy.api.get(`/v1/channels/${id}/nlp`)).body.training.status === 'ready' ? true : undefined),
          15_000,
          `channel ${id} trained`,
        );
      }
      assert.equal(mostAtOnce, 1);
    });
  });

  describe(`NLP training memory bound (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(dialect, { workers: true, env: { NLP_TRAINING_MEMORY_MB: '16', WORKER_POLL_MS: '50' } });
    });
    after(() => s?.close());

    test('a training over the memory bound fails with a clear error; a small one under the same bound is trained', async () => {
      const make = async (name: string, body: Record<string, unknown>) => {
        const made = await s.api.post('/v1/channels', { type: 'service_chat', name, webhook: { url: 'https://example.com/hook' } });
        assert.equal(made.status, 201, made.text);
        const put = await s.api.request('PUT', `/v1/channels/${made.body.id}/nlp`, body);
        assert.ok(put.status === 200 || put.status === 201, put.text);
        return made.body.id as string;
      };
      const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike'.split(' ');
      const big = await make('big', {
        kind: 'builtin',
        languages: ['en'],
        intents: Array.from({ length: 20 }, (_, i) => ({
          id: `intent_${i}`,
          utterances: { en: Array.from({ length: 200 }, (_, j) => `${words[i % words.length]} ${words[j % words.length]} code${i}x${j}`) },
        })),
      });
      const small = await make('small', {
        kind: 'builtin',
        languages: ['en'],
        intents: [
          { id: 'hello', utterances: { en: ['hello there', 'hi'] } },
          { id: 'bye', utterances: { en: ['bye now', 'goodbye'] } },
        ],
      });
      const state = (id: string, want: string) =>
        eventually(
          async () => {
            const res = await s.api.get(`/v1/channels/${id}/nlp`);
            return res.body.training.status === want ? res.body.training : undefined;
          },
          60_000,
          `training ${want}`,
        );
      const failed = await state(big, 'failed');
      assert.match(failed.error, /memory bound of 16 MB/);
      assert.equal(failed.model_version, null);
      const ready = await state(small, 'ready');
      assert.equal(ready.error, null);
    });
  });
}
