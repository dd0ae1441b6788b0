import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { STAND_INS } from '../../sandbox/registry.js';
import { createNluserverStandIn, type ModelInput, type NluserverOptions } from '../../sandbox/nluserver/server.js';
import { at, call, get, post } from './helpers/http.js';

// The NLU server stand-in over real HTTP: the parse answer, token auth, the server's error bodies,
// faults, the request log and what survives a restart.

const CAFE: ModelInput = {
  name: 'cafe',
  intents: [
    { name: 'greet', examples: ['hello', 'hi there', 'good morning'] },
    { name: 'order_drink', examples: ['i want a coffee', 'one latte please', 'can i order a cappuccino'] },
    { name: 'goodbye', examples: ['bye', 'see you later'] },
  ],
  entities: [{ entity: 'drink', values: ['coffee', 'latte', 'flat white', 'cappuccino'] }],
};

async function start(t: TestContext, options: NluserverOptions = {}): Promise<string> {
  const standIn = createNluserverStandIn(options);
  t.after(() => standIn.close());
  return standIn.listen(0);
}

type Ranked = Array<{ name: string; confidence: number }>;

function errorBody(code: number, reason: string, message: string): Record<string, unknown> {
  return { version: '3.6.20', status: 'failure', message, reason, details: {}, help: null, code };
}

const NO_AGENT = errorBody(409, 'Conflict', 'No agent loaded. To continue processing, a model of a trained agent needs to be loaded.');
const NOT_AUTHENTICATED = errorBody(401, 'NotAuthenticated', 'User is not authenticated.');

/** A raw POST (any body, any content type). */
async function postRaw(url: string, body: string | undefined, contentType?: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', ...(body === undefined ? {} : { body }), headers: contentType ? { 'content-type': contentType } : {} });
  return { status: res.status, body: (await res.json()) as unknown };
}

test('the greeting, the version and the status of the loaded model', async (t) => {
  const base = await start(t);
  const hello = await fetch(`${base}/`);
  assert.equal(hello.status, 200);
  assert.match(hello.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(await hello.text(), 'Hello from NLU server: 3.6.20');
  assert.deepEqual((await get(`${base}/version`)).body, { version: '3.6.20', minimum_compatible_version: '3.5.0' });

  const none = await get(`${base}/status`);
  assert.equal(none.status, 409);
  assert.deepEqual(none.body, NO_AGENT);

  const loaded = await call('PUT', `${base}/_sandbox/model`, CAFE);
  assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
  const status = await get(`${base}/status`);
  assert.equal(status.status, 200);
  assert.match(String(status.body.model_id), /^[0-9a-f]{32}$/);
  assert.match(String(status.body.model_file), /^\d{8}-\d{6}-cafe\.tar\.gz$/);
  assert.equal(status.body.model_id, at(loaded.body, 'model', 'model_id'));
  assert.equal(status.body.num_active_training_jobs, 0);

  const unknown = await get(`${base}/model/nothing`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.message, 'Requested URL /model/nothing not found');
});

test('parse: intent, ranking highest first with confidences summing to 1, entities and tokens with their offsets', async (t) => {
  const base = await start(t, { model: CAFE });
  const res = await post(`${base}/model/parse`, { text: '  I want a Flat White and a latte, please! ', message_id: 'm-1' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['entities', 'intent', 'intent_ranking', 'text', 'text_tokens']);
  assert.equal(res.body.text, 'I want a Flat White and a latte, please!', 'the text is stripped, as the server does');
  const ranking = res.body.intent_ranking as Ranked;
  assert.deepEqual(
    ranking.map((r) => r.name),
    ['order_drink', 'greet', 'goodbye'],
  );
  assert.deepEqual(res.body.intent, ranking[0]);
  assert.ok(ranking[0]!.confidence > 0.9, JSON.stringify(ranking));
  for (let i = 1; i < ranking.length; i++) assert.ok(ranking[i - 1]!.confidence >= ranking[i]!.confidence);
  assert.ok(Math.abs(ranking.reduce((sum, r) => sum + r.confidence, 0) - 1) < 1e-9);
  assert.deepEqual(res.body.entities, [
    { entity: 'drink', start: 9, end: 19, confidence_entity: 1, value: 'Flat White', extractor: 'RegexEntityExtractor' },
    { entity: 'drink', start: 26, end: 31, confidence_entity: 1, value: 'latte', extractor: 'RegexEntityExtractor' },
  ]);
  assert.deepEqual(res.body.text_tokens, [
    [0, 1],
    [2, 6],
    [7, 8],
    [9, 13],
    [14, 19],
    [20, 23],
    [24, 25],
    [26, 31],
    [33, 39],
  ]);

  // Another text, another intent; a value inside a longer word is no entity.
  const bye = await post(`${base}/model/parse`, { text: 'OK bye, see you later' });
  assert.equal(at(bye.body, 'intent', 'name'), 'goodbye');
  const none = await post(`${base}/model/parse`, { text: 'coffeehouse lattes' });
  assert.deepEqual(none.body.entities, []);

  // Offsets count characters (code points), not UTF-16 units.
  const emoji = await post(`${base}/model/parse`, { text: '😀 one latte' });
  assert.deepEqual(at(emoji.body, 'entities', 0, 'start'), 6);
  assert.deepEqual(emoji.body.text_tokens, [
    [2, 5],
    [6, 11],
  ]);

  // A text list: its first item is parsed. An empty text: no intent.
  assert.equal(at((await post(`${base}/model/parse`, { text: ['hello', 'bye'] })).body, 'intent', 'name'), 'greet');
  const empty = await post(`${base}/model/parse`, { text: '   ' });
  assert.deepEqual(empty.body, { text: '', intent: { name: null, confidence: 0 }, entities: [], text_tokens: [], intent_ranking: [] });
});

test('parse: a text like no example gives every intent the same confidence, in the model order', async (t) => {
  const base = await start(t, { model: CAFE });
  const res = await post(`${base}/model/parse`, { text: 'xyzzy' });
  const ranking = res.body.intent_ranking as Ranked;
  assert.deepEqual(
    ranking.map((r) => r.name),
    ['greet', 'order_drink', 'goodbye'],
  );
  for (const r of ranking) assert.ok(Math.abs(r.confidence - 1 / 3) < 1e-9);
});

test('parse: the ranking lists 10 intents at most (or rankingLength)', async (t) => {
  const intents = Array.from({ length: 12 }, (_, i) => ({ name: `intent_${i}`, examples: [`word${i} common`] }));
  const base = await start(t, { model: { intents } });
  const res = await post(`${base}/model/parse`, { text: 'word11 common' });
  const ranking = res.body.intent_ranking as Ranked;
  assert.equal(ranking.length, 10);
  assert.equal(ranking[0]!.name, 'intent_11');

  const short = await start(t, { model: { intents }, rankingLength: 3 });
  assert.equal(((await post(`${short}/model/parse`, { text: 'word2' })).body.intent_ranking as Ranked).length, 3);
});

test('token auth: without the token or with a wrong one 401, with it 200; the greeting and version stay open', async (t) => {
  const base = await start(t, { token: 'secret-token', model: CAFE });
  for (const query of ['', '?token=wrong', '?token=']) {
    const res = await post(`${base}/model/parse${query}`, { text: 'hello' });
    assert.equal(res.status, 401, query);
    assert.deepEqual(res.body, NOT_AUTHENTICATED);
    assert.equal((await get(`${base}/status${query}`)).status, 401);
  }
  const ok = await post(`${base}/model/parse?token=secret-token`, { text: 'hello' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(at(ok.body, 'intent', 'name'), 'greet');
  assert.equal((await get(`${base}/status?token=secret-token`)).status, 200);
  assert.equal((await fetch(`${base}/`)).status, 200);
  assert.equal((await get(`${base}/version`)).status, 200);

  // The token is checked before anything else: a wrong one with a broken body is still a 401.
  assert.equal((await postRaw(`${base}/model/parse`, '{not json', 'application/json')).status, 401);

  // Changed and turned off through the control API.
  assert.deepEqual((await call('PUT', `${base}/_sandbox/token`, { token: 'another' })).body, { token: 'another' });
  assert.equal((await post(`${base}/model/parse?token=secret-token`, { text: 'hello' })).status, 401);
  assert.equal((await post(`${base}/model/parse?token=another`, { text: 'hello' })).status, 200);
  assert.deepEqual((await get(`${base}/_sandbox/token`)).body, { token: 'another' });
  assert.deepEqual((await call('DELETE', `${base}/_sandbox/token`)).body, { token: null });
  assert.equal((await post(`${base}/model/parse`, { text: 'hello' })).status, 200);
  assert.equal((await call('PUT', `${base}/_sandbox/token`, { token: '' })).status, 400);
  assert.equal((await call('PUT', `${base}/_sandbox/token`, { token: 5 })).status, 400);
});

test('no model loaded: 409 Conflict, before and after a model was unloaded', async (t) => {
  const base = await start(t, { token: 'tk' });
  const res = await post(`${base}/model/parse?token=tk`, { text: 'hello' });
  assert.equal(res.status, 409);
  assert.deepEqual(res.body, NO_AGENT);

  assert.equal((await call('PUT', `${base}/_sandbox/model`, CAFE)).status, 200);
  assert.equal((await post(`${base}/model/parse?token=tk`, { text: 'hello' })).status, 200);
  assert.deepEqual((await call('DELETE', `${base}/_sandbox/model`)).body, { model: null });
  assert.deepEqual((await get(`${base}/_sandbox/model`)).body, { model: null });
  assert.deepEqual((await post(`${base}/model/parse?token=tk`, { text: 'hello' })).body, NO_AGENT);
});

test('malformed bodies: 400 with the server error body', async (t) => {
  const base = await start(t, { model: CAFE });
  const url = `${base}/model/parse`;
  const noText = errorBody(
    400,
    'BadRequest',
    'No text message defined in request_body. Add text message to request body in order to obtain the intent and extracted entities.',
  );
  assert.deepEqual(await postRaw(url, undefined), { status: 400, body: noText });
  assert.deepEqual(await postRaw(url, '', 'application/json'), { status: 400, body: noText });
  assert.deepEqual(await postRaw(url, '{"text": ', 'application/json'), {
    status: 400,
    body: errorBody(400, 'ParsingError', 'An unexpected error occurred. Error: Failed when parsing body as json'),
  });
  for (const body of ['{"message": "hello"}', '{"text": 42}', '[1, 2]', '"hello"']) {
    const res = await postRaw(url, body, 'application/json');
    assert.equal(res.status, 400, body);
    assert.equal(at(res.body, 'reason'), 'ParsingError', body);
  }
  // The server reads the body as JSON whatever its content type says.
  const plain = await postRaw(url, '{"text": "hello"}', 'text/plain');
  assert.equal(plain.status, 200);
  assert.equal(at(plain.body, 'intent', 'name'), 'greet');
});

test('faults: a slow answer, a hang ending in 503, a 500 once, a 429 with Retry-After, a dropped connection', async (t) => {
  const base = await start(t, { model: CAFE });
  const url = `${base}/model/parse`;
  const fault = async (body: Record<string, unknown>) => assert.equal((await post(`${base}/_sandbox/faults`, body)).status, 201);

  await fault({ kind: 'slow_answer', endpoint: 'parse', delay_ms: 400 });
  let began = Date.now();
  const slow = await post(url, { text: 'hello' });
  assert.equal(slow.status, 200);
  assert.equal(at(slow.body, 'intent', 'name'), 'greet');
  assert.ok(Date.now() - began >= 390, `answered after ${Date.now() - began} ms`);

  await fault({ kind: 'timeout', endpoint: 'parse', delay_ms: 300, status: 503 });
  began = Date.now();
  const hung = await post(url, { text: 'hello' });
  assert.equal(hung.status, 503);
  assert.equal(hung.body.reason, 'ParsingError');
  assert.ok(Date.now() - began >= 290);

  await fault({ kind: 'server_error', message: 'model crashed' });
  const failed = await post(url, { text: 'hello' });
  assert.equal(failed.status, 500);
  assert.deepEqual(failed.body, errorBody(500, 'ParsingError', 'An unexpected error occurred. Error: model crashed'));
  assert.equal((await post(url, { text: 'hello' })).status, 200, 'the fault applied once');

  await fault({ kind: 'rate_limit', retry_after: 7 });
  const limited = await call('POST', url, { text: 'hello' });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '7');

  // A fault on another endpoint leaves parse alone.
  await fault({ kind: 'server_error', endpoint: 'status' });
  assert.equal((await post(url, { text: 'hello' })).status, 200);
  assert.equal((await get(`${base}/status`)).body.reason, 'UnexpectedError');

  await fault({ kind: 'server_error', endpoint: 'parse', status: 0 });
  await assert.rejects(fetch(url, { method: 'POST', body: '{"text":"hello"}' }), (e: unknown) => e instanceof TypeError);
  const dropped = (await get(`${base}/_sandbox/requests?path_contains=/model/parse`)).body.requests as Array<Record<string, unknown>>;
  assert.deepEqual(
    { status: dropped.at(-1)?.status, body: dropped.at(-1)?.body },
    { status: 0, body: { text: 'hello' } },
    'a dropped call is logged with status 0',
  );
  assert.equal((await post(url, { text: 'hello' })).status, 200);
  assert.deepEqual((await get(`${base}/_sandbox/faults`)).body, { faults: [] });
});

test('the request log counts parse calls with what they sent and got', async (t) => {
  const base = await start(t, { model: CAFE, token: 'tk' });
  const texts = ['hello', 'one latte please', 'bye'];
  for (const text of texts) await post(`${base}/model/parse?token=tk`, { text });
  await post(`${base}/model/parse`, { text: 'no token' });
  await get(`${base}/version`);
  await get(`${base}/_sandbox/model`);

  const parsed = (await get(`${base}/_sandbox/requests?path_contains=/model/parse`)).body.requests as Array<Record<string, any>>;
  assert.equal(parsed.length, 4);
  assert.deepEqual(
    parsed.map((r) => [r.body.text, r.status, r.query.token]),
    [
      ['hello', 200, 'tk'],
      ['one latte please', 200, 'tk'],
      ['bye', 200, 'tk'],
      ['no token', 401, undefined],
    ],
  );
  assert.equal(parsed[1]!.response.intent.name, 'order_drink');
  const all = (await get(`${base}/_sandbox/requests`)).body.requests as Array<Record<string, unknown>>;
  assert.equal(all.length, 5, 'control calls are not logged');
  const later = (await get(`${base}/_sandbox/requests?since_id=${String(parsed[2]!.id)}`)).body.requests as unknown[];
  assert.equal(later.length, 2);
  await call('DELETE', `${base}/_sandbox/requests`);
  assert.deepEqual((await get(`${base}/_sandbox/requests`)).body, { requests: [] });
});

test('control: a model that is not one is refused; state and reset', async (t) => {
  const base = await start(t, { token: 'tk', model: CAFE });
  const bad: unknown[] = [
    {},
    { intents: [] },
    { intents: [{ examples: ['x'] }] },
    { intents: [{ name: 'a', examples: 'x' }] },
    { intents: [{ name: 'a' }, { name: 'a' }] },
    { intents: [{ name: 'a' }], entities: [{ entity: 'e', values: [''] }] },
    { intents: [{ name: 'a' }], entities: {} },
    { intents: [{ name: 'a' }], name: 'has space' },
  ];
  for (const body of bad) {
    const res = await call('PUT', `${base}/_sandbox/model`, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(typeof at(res.body, 'error', 'message'), 'string');
  }
  assert.equal(at((await get(`${base}/_sandbox/model`)).body, 'model', 'intents', 1, 'name'), 'order_drink', 'the loaded model stays');

  const state = (await get(`${base}/_sandbox/state`)).body;
  assert.equal(state.token, 'tk');
  assert.equal(at(state, 'model', 'entities', 0, 'entity'), 'drink');
  assert.equal((await get(`${base}/_sandbox`)).body.platform, 'nluserver');

  assert.deepEqual((await post(`${base}/_sandbox/reset`)).body, { reset: true, model: null, token: null });
  assert.deepEqual((await post(`${base}/model/parse`, { text: 'hello' })).body, NO_AGENT);
});

test('a bad model or an empty token in the options stops the factory', () => {
  assert.throws(() => createNluserverStandIn({ model: { intents: [] } }), /intents/);
  assert.throws(() => createNluserverStandIn({ token: '' }), /token/);
});

test('the model and the token survive a restart (registry entry, snapshot as JSON); traffic and faults do not', async (t) => {
  const entry = STAND_INS.find((e) => e.platform === 'nluserver');
  assert.ok(entry);
  assert.equal(entry.portOffset, 7);
  assert.equal(entry.urlVariable, undefined);

  const first = entry.create();
  t.after(() => first.standIn.close());
  const base1 = await first.standIn.listen(0);
  assert.deepEqual(first.serverEnv?.(), { NLP_ALLOWLIST: new URL(base1).host });
  const model = (await call('PUT', `${base1}/_sandbox/model`, CAFE)).body.model;
  await call('PUT', `${base1}/_sandbox/token`, { token: 'kept-token' });
  await post(`${base1}/model/parse?token=kept-token`, { text: 'hello' });
  await post(`${base1}/_sandbox/faults`, { kind: 'server_error' });
  const saved = JSON.parse(JSON.stringify(first.standIn.snapshot())) as unknown;
  await first.standIn.close();

  const second = entry.create();
  t.after(() => second.standIn.close());
  second.standIn.restore(saved);
  const base2 = await second.standIn.listen(0);
  assert.deepEqual((await get(`${base2}/_sandbox/model`)).body.model, model);
  assert.equal((await post(`${base2}/model/parse`, { text: 'hello' })).status, 401);
  const parsed = await post(`${base2}/model/parse?token=kept-token`, { text: 'one latte please' });
  assert.equal(parsed.status, 200, 'no fault was kept');
  assert.equal(at(parsed.body, 'intent', 'name'), 'order_drink');
  const logged = (await get(`${base2}/_sandbox/requests`)).body.requests as Array<{ body: { text: string } }>;
  assert.deepEqual(
    logged.map((r) => r.body.text),
    ['hello', 'one latte please'],
    'only the calls since the restart',
  );
  assert.equal(at((await get(`${base2}/status?token=kept-token`)).body, 'model_id'), at(model, 'model_id'));

  // A snapshot of a stand-in without model and token restores to none.
  const empty = createNluserverStandIn({ token: 'x', model: CAFE });
  empty.restore(JSON.parse(JSON.stringify(createNluserverStandIn().snapshot())) as unknown);
  assert.equal(empty.state.model, null);
  assert.equal(empty.state.token, null);
});
