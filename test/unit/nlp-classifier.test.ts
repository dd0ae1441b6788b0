import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReceivedTextClassifier, type NlpEngines } from '../../src/domain/nlp/classifier.js';
import type { NlpIntegrationHead, NlpStatsDelta } from '../../src/store/repos/nlp.js';
import type { Store } from '../../src/store/store.js';
import type { SecretBox } from '../../src/lib/crypto.js';
import type { NlpEngine, NlpOutcome } from '../../src/nlp/engine.js';
import { NLP_LIMITS } from '../../src/schemas/nlp.js';

// The classifier of received text over a store and engines made here: what reaches the engine,
// the budget, failures as values, and what it keeps of a channel's integration.

const HEAD: NlpIntegrationHead = {
  channel_id: 7,
  account_id: 1,
  kind: 'external',
  config: JSON.stringify({ url: 'http://nlu.example' }),
  secret: null,
  time_budget_ms: 50,
  training_version: 0,
  training_status: null,
  training_error: null,
  model_version: null,
  trained_at: null,
  created_at: 0,
  updated_at: 0,
};

const ANSWER: NlpOutcome = { ok: true, result: { intents: [{ id: 'greet', confidence: 0.9 }], native_data: { ok: true } } };

function setUp(engine: NlpEngine, head: () => Promise<NlpIntegrationHead | undefined> = async () => HEAD) {
  const reads: number[] = [];
  const stats: NlpStatsDelta[] = [];
  const store = {
    nlp: {
      head: async (id: number) => {
        reads.push(id);
        return head();
      },
      model: async () => undefined,
      addStats: async (deltas: NlpStatsDelta[]) => void stats.push(...deltas),
    },
  } as unknown as Store;
  const engines: NlpEngines = { builtin: async () => engine, external: () => engine };
  const classifier = new ReceivedTextClassifier({
    store,
    box: {} as SecretBox,
    engines,
    now: () => Date.now(),
    cacheMs: 60_000,
    defaultBudgetMs: 500,
    statsFlushMs: 60_000,
    logger: { warn: () => undefined, info: () => undefined },
  });
  return { classifier, reads, stats };
}

const text = (payload: string) => ({ type: 'text' as const, payload });

test('a text is classified by its first characters; other content and blank text are not sent', async () => {
  const seen: string[] = [];
  const { classifier, reads } = setUp({ parse: async (t) => (seen.push(t), ANSWER) });
  const long = 'a'.repeat(NLP_LIMITS.parseTextLength) + 'b'.repeat(100);
  assert.deepEqual(await classifier.classify(7, text(long)), ANSWER.ok && ANSWER.result);
  assert.equal(seen[0], 'a'.repeat(NLP_LIMITS.parseTextLength));
  assert.equal(await classifier.classify(7, text('   ')), undefined);
  assert.equal(await classifier.classify(7, { type: 'location', payload: { latitude: 1, longitude: 2 } } as never), undefined);
  assert.equal(seen.length, 1);
  assert.equal(reads.length, 1, 'the integration is read once and kept');
});

test('an engine that does not answer within the budget leaves nlp out at the budget, counted as timed out', async () => {
  let aborted = false;
  const { classifier, stats } = setUp({
    parse: (_t, signal) =>
      new Promise<NlpOutcome>(() => {
        signal.addEventListener('abort', () => (aborted = true));
      }),
  });
  const started = performance.now();
  assert.equal(await classifier.classify(7, text('hello')), undefined);
  const took = performance.now() - started;
  assert.ok(took >= 45 && took < 1_000, `gave up after ${took} ms`);
  assert.ok(aborted, 'the engine was told to stop');
  await classifier.flushStats();
  assert.equal(stats[0]!.timedOut, 1);
  assert.equal(classifier.stats.totals.timedOut, 1);
});

test('an engine that throws or fails is counted and never throws; a store that fails is a failure too', async () => {
  const { classifier, stats } = setUp({
    parse: async () => {
      throw new Error('boom');
    },
  });
  assert.equal(await classifier.classify(7, text('hello')), undefined);
  await classifier.flushStats();
  assert.equal(stats[0]!.failed, 1);
  assert.match(stats[0]!.lastFailure!.message, /boom/);

  const broken = setUp({ parse: async () => ANSWER }, async () => {
    throw new Error('database gone');
  });
  assert.equal(await broken.classifier.classify(7, text('hello')), undefined);
  assert.equal(broken.classifier.stats.totals.failed, 1);
});

test('messages that find the integration unknown at once share one read; a change during a read is not hidden by it', async () => {
  let release!: () => void;
  let current: NlpIntegrationHead | undefined = undefined;
  const { classifier, reads } = setUp({ parse: async () => ANSWER }, async () => {
    // What the database had when the read began, answered when the test lets it.
    const seen = current;
    await new Promise<void>((resolve) => (release = resolve));
    return seen;
  });
  const both = Promise.all([classifier.classify(7, text('a')), classifier.classify(7, text('b'))]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(reads.length, 1);
  // The integration is created while that read runs (it read "none").
  current = HEAD;
  classifier.forget(7);
  release();
  assert.deepEqual(await both, [undefined, undefined]);
  const next = classifier.classify(7, text('c'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(reads.length, 2, 'read again: the stale answer was not kept');
  release();
  assert.deepEqual(await next, ANSWER.ok && ANSWER.result);
});
