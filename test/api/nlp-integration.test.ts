import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { eventually } from '../helpers/waits.js';
import { NLP_LIMITS } from '../../src/schemas/nlp.js';

// A channel's NLP integration through the API: create, read, change and remove it, with every
// limit at its boundary, the write-only auth token, the training state of a built-in one, and
// another account's channel answered as missing.

const BUILTIN = {
  kind: 'builtin',
  languages: ['en', 'es'],
  intents: [
    { id: 'greeting', utterances: { en: ['hello', 'hi there', 'good morning'], es: ['hola', 'buenos días', 'buenas tardes'] } },
    { id: 'order_status', utterances: { en: ['where is my order', 'track my package'], es: ['dónde está mi pedido', 'estado de mi pedido'] } },
  ],
};

for (const { dialect, skip, test } of await dialects()) {
  describe(`NLP integration API (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(dialect, { workers: true });
    });
    after(async () => s?.close());

    async function channel(): Promise<string> {
      const res = await s.api.post('/v1/channels', { type: 'service_chat', name: 'nlp' });
      assert.equal(res.status, 201, res.text);
      return res.body.id;
    }
    const put = (id: string, body: unknown) => s.api.request('PUT', `/v1/channels/${id}/nlp`, body);

    function assertInvalid(res: { status: number; body: any; text: string }, field: string): void {
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.errors[0].field, field, res.text);
    }

    test('a built-in integration is created (201, Location), trained by a job, read, replaced (200) and removed', async () => {
      const id = await channel();
      assert.equal((await s.api.get(`/v1/channels/${id}/nlp`)).status, 404);
      const created = await put(id, BUILTIN);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get('location'), `${s.baseUrl}/channels/${id}/nlp`);
      assert.equal(created.body.kind, 'builtin');
      assert.deepEqual(created.body.channel, { id });
      assert.equal(created.body.time_budget_ms, 500);
      assert.deepEqual(created.body.languages, ['en', 'es']);
      assert.equal(created.body.training.version, 1);
      assert.equal(created.body.training.model_version, null);
      assert.equal(created.body.training.status, 'queued');
      assert.deepEqual(created.body.stats, { classified: 0, failed: 0, timed_out: 0, last_failure: null });

      const ready = await eventually(async () => {
        const res = await s.api.get(`/v1/channels/${id}/nlp`);
        return res.body.training.status === 'ready' ? res.body : undefined;
      });
      assert.equal(ready.training.model_version, 1);
      assert.ok(Date.parse(ready.training.trained) > 0);

      const tried = await s.api.post(`/v1/channels/${id}/nlp/parse`, { text: 'hi, where is my package?' });
      assert.equal(tried.status, 200, tried.text);
      assert.equal(tried.body.nlp.intents[0].id, 'order_status');
      // Trying a phrase is not a received message: not counted.
      assert.equal((await s.api.get(`/v1/channels/${id}/nlp`)).body.stats.classified, 0);

      // The same data again keeps the model; other data is a new version, trained again.
      const same = await put(id, { ...BUILTIN, time_budget_ms: 250 });
      assert.equal(same.status, 200, same.text);
      assert.equal(same.body.training.version, 1);
      assert.equal(same.body.training.status, 'ready');
      assert.equal(same.body.time_budget_ms, 250);
      const changed = await s.api.patch(`/v1/channels/${id}/nlp`, {
        intents: [...BUILTIN.intents, { id: 'goodbye', utterances: { en: ['bye', 'see you'], es: ['adiós', 'hasta luego'] } }],
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.training.version, 2);
      assert.equal(changed.body.training.model_version, 1, 'the model in use serves until the new one is ready');
      assert.equal(changed.body.time_budget_ms, 250);
      await eventually(async () => ((await s.api.get(`/v1/channels/${id}/nlp`)).body.training.model_version === 2 ? true : undefined));
      const reset = await s.api.patch(`/v1/channels/${id}/nlp`, { time_budget_ms: null });
      assert.equal(reset.body.time_budget_ms, 500);

      assert.equal((await s.api.delete(`/v1/channels/${id}/nlp`)).status, 204);
      assert.equal((await s.api.get(`/v1/channels/${id}/nlp`)).status, 404);
      assert.equal((await s.api.delete(`/v1/channels/${id}/nlp`)).status, 404);
      assert.equal((await s.api.post(`/v1/channels/${id}/nlp/parse`, { text: 'hello' })).status, 404);
    });

    test('an external integration keeps its auth token write-only; a replacement by a built-in one changes its kind', async () => {
      const id = await channel();
      const created = await put(id, { kind: 'external', url: 'https://nlu.example.com/', auth_token: 's3cret' });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.url, 'https://nlu.example.com/');
      assert.equal(created.body.auth_token_set, true);
      assert.ok(!created.text.includes('s3cret'));
      assert.equal(created.body.training, undefined);
      assertInvalid(await s.api.patch(`/v1/channels/${id}/nlp`, { intents: BUILTIN.intents }), 'intents');
      assertInvalid(await s.api.patch(`/v1/channels/${id}/nlp`, { kind: 'builtin' }), 'kind');
      const cleared = await s.api.patch(`/v1/channels/${id}/nlp`, { auth_token: null });
      assert.equal(cleared.body.auth_token_set, false);
      const moved = await s.api.patch(`/v1/channels/${id}/nlp`, { url: 'http://nlu.example.com:5005' });
      assert.equal(moved.body.url, 'http://nlu.example.com:5005');
      const builtin = await put(id, BUILTIN);
      assert.equal(builtin.status, 200, builtin.text);
      assert.equal(builtin.body.kind, 'builtin');
      assert.equal(builtin.body.url, undefined);
      assert.equal(builtin.body.training.status, 'queued');
      assertInvalid(await s.api.patch(`/v1/channels/${id}/nlp`, { url: 'https://x.example' }), 'url');
    });

    test('another account, a missing channel and a malformed id answer 404', async () => {
      const id = await channel();
      assert.equal((await put(id, BUILTIN)).status, 201);
      const other = await s.newAccount();
      assert.equal((await other.api.get(`/v1/channels/${id}/nlp`)).status, 404);
      assert.equal((await other.api.request('PUT', `/v1/channels/${id}/nlp`, BUILTIN)).status, 404);
      assert.equal((await other.api.delete(`/v1/channels/${id}/nlp`)).status, 404);
      assert.equal((await s.api.get('/v1/channels/999999999/nlp')).status, 404);
      assert.equal((await s.api.get('/v1/channels/abc/nlp')).status, 404);
      assert.equal((await s.api.get(`/v1/channels/${id}/nlp`)).status, 200, 'untouched');
      // Deleting the channel takes its integration.
      assert.equal((await s.api.delete(`/v1/channels/${id}`)).status, 204);
      assert.equal((await s.api.get(`/v1/channels/${id}/nlp`)).status, 404);
    });

    test('every limit of the input is enforced at its boundary', async () => {
      const id = await channel();
      const intent = (i: number, phrases = ['hello']) => ({ id: `intent_${i}`, utterances: { en: phrases } });
      const base = { kind: 'builtin', languages: ['en'] };

      assertInvalid(await put(id, { ...base, languages: ['xx'], intents: [intent(0)] }), 'languages[0]');
      assertInvalid(await put(id, { ...base, languages: ['en', 'en'], intents: [intent(0)] }), 'languages');
      assertInvalid(await put(id, { ...base, languages: ['en', 'es'], intents: [intent(0)] }), 'languages[1]');
      assertInvalid(await put(id, { ...base, intents: [{ id: 'a', utterances: { es: ['hola'] } }] }), 'intents[0].utterances.es');
      assertInvalid(await put(id, { ...base, intents: [intent(0), intent(0)] }), 'intents[1].id');
      assertInvalid(await put(id, { ...base, intents: [{ id: 'None', utterances: { en: ['x'] } }] }), 'intents[0].id');
      assertInvalid(await put(id, { ...base, intents: [{ id: 'bad id', utterances: { en: ['x'] } }] }), 'intents[0].id');
      assertInvalid(await put(id, { ...base, intents: [] }), 'intents');
      assertInvalid(await put(id, { ...base, intents: [intent(0, ['   '])] }), 'intents[0].utterances.en[0]');
      assertInvalid(await put(id, { ...base, intents: [intent(0, ['x'.repeat(NLP_LIMITS.phraseLength + 1)])] }), 'intents[0].utterances.en[0]');
      assertInvalid(await put(id, { ...base, intents: [{ id: 'x'.repeat(NLP_LIMITS.idLength + 1), utterances: { en: ['x'] } }] }), 'intents[0].id');
      const tooMany = Array.from({ length: NLP_LIMITS.intents + 1 }, (_, i) => intent(i));
      assertInvalid(await put(id, { ...base, intents: tooMany }), 'intents');
      assertInvalid(await put(id, { ...base, intents: [intent(0)], time_budget_ms: NLP_LIMITS.minBudgetMs - 1 }), 'time_budget_ms');
      assertInvalid(await put(id, { ...base, intents: [intent(0)], time_budget_ms: NLP_LIMITS.maxBudgetMs + 1 }), 'time_budget_ms');
      assertInvalid(
        await put(id, { ...base, intents: [intent(0)], entities: [{ name: 'color', values: [{ value: 'red', synonyms: { fr: ['rouge'] } }] }] }),
        'entities[0].values[0].synonyms.fr',
      );
      assertInvalid(await put(id, { kind: 'external', url: 'ftp://nlu.example.com' }), 'url');
      assertInvalid(await put(id, { kind: 'external', url: 'https://nlu.example.com', auth_token: '' }), 'auth_token');
      assertInvalid(await put(id, { kind: 'other' }), 'kind');
      assertInvalid(await put(id, { languages: ['en'] }), 'kind');
      assert.equal((await s.api.get(`/v1/channels/${id}/nlp`)).status, 404, 'nothing was stored');

      // At the limits: accepted.
      const most = Array.from({ length: NLP_LIMITS.intents }, (_, i) => intent(i, ['x'.repeat(NLP_LIMITS.phraseLength)]));
      const atLimits = await put(id, {
        ...base,
        intents: most,
        time_budget_ms: NLP_LIMITS.maxBudgetMs,
        entities: [{ name: 'color', values: [{ value: 'red', synonyms: { en: ['red', 'crimson'] } }] }],
      });
      assert.equal(atLimits.status, 201, atLimits.text);
      assert.equal(atLimits.body.intents.length, NLP_LIMITS.intents);
      const least = await put(id, {
        ...base,
        intents: [{ id: 'x'.repeat(NLP_LIMITS.idLength), utterances: { en: ['x'] } }],
        time_budget_ms: NLP_LIMITS.minBudgetMs,
      });
      assert.equal(least.status, 200, least.text);
      // Phrases are stored trimmed and once.
      const trimmed = await put(id, { ...base, intents: [intent(0, [' hello ', 'hello', 'hi'])] });
      assert.deepEqual(trimmed.body.intents[0].utterances.en, ['hello', 'hi']);

      const parse = (text: string) => s.api.post(`/v1/channels/${id}/nlp/parse`, { text });
      assertInvalid(await parse(''), 'text');
      assertInvalid(await parse('x'.repeat(NLP_LIMITS.parseTextLength + 1)), 'text');
    });

    test('until its first model is trained, a built-in integration answers a try with 409', async () => {
      // A server without workers: the training job waits in the store.
      const idle = await startTestServer(dialect);
      try {
        const made = await idle.api.post('/v1/channels', { type: 'service_chat', name: 'untrained' });
        assert.equal((await idle.api.request('PUT', `/v1/channels/${made.body.id}/nlp`, BUILTIN)).status, 201);
        const res = await idle.api.post(`/v1/channels/${made.body.id}/nlp/parse`, { text: 'hello' });
        assert.equal(res.status, 409, res.text);
        assert.match(res.body.errors[0].message, /no trained model/);
        assert.equal((await idle.api.get(`/v1/channels/${made.body.id}/nlp`)).body.training.status, 'queued');
      } finally {
        await idle.close();
      }
    });
  });
}
