import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { externalEngine, MAX_ANSWER_BYTES } from '../../src/nlp/external/engine.js';
import { nlpDispatcher } from '../../src/nlp/external/dispatcher.js';
import type { NlpOutcome } from '../../src/nlp/engine.js';

interface Received {
  method: string;
  url: string;
  body: string;
  contentType: string | undefined;
}

/** A stand-in NLU server: answers each call with the current handler and records what it got. */
const received: Received[] = [];
let handler: (request: Received, response: ServerResponse) => void = (_request, response) => response.end('{}');
const server = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const got = {
      method: request.method ?? '',
      url: request.url ?? '',
      body: Buffer.concat(chunks).toString('utf8'),
      contentType: request.headers['content-type'],
    };
    received.push(got);
    handler(got, response);
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const base = `http://127.0.0.1:${port}`;
const allowed = nlpDispatcher({ allowlist: ['127.0.0.1'] });
const guarded = nlpDispatcher({ allowlist: [] });

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([allowed.destroy(), guarded.destroy()]);
});

const open = () => new AbortController().signal;
const answerJson = (value: unknown) => {
  handler = (_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(value));
  };
};
const failure = (outcome: NlpOutcome) => {
  assert.equal(outcome.ok, false, 'expected a failure');
  return outcome as Extract<NlpOutcome, { ok: false }>;
};

test('the intent ranking becomes the intents, highest first, and the whole answer native_data', async () => {
  const answer = {
    text: 'where is my order',
    intent: { name: 'order_status', confidence: 0.91 },
    intent_ranking: [
      { name: 'greeting', confidence: 0.02 },
      { name: 'order_status', confidence: 0.91 },
      { name: 'goodbye', confidence: 0.07 },
    ],
    entities: [{ entity: 'product', value: 'shoes', start: 3, end: 8 }],
  };
  answerJson(answer);
  for (const url of [`${base}/nlu`, `${base}/nlu/`]) {
    received.length = 0;
    const outcome = await externalEngine({ url, dispatcher: allowed }).parse('where is my order', open());
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.result.intents, [
      { id: 'order_status', confidence: 0.91 },
      { id: 'goodbye', confidence: 0.07 },
      { id: 'greeting', confidence: 0.02 },
    ]);
    assert.deepEqual(outcome.result.native_data, answer);
    assert.equal(received.length, 1);
    assert.equal(received[0]?.method, 'POST');
    assert.equal(received[0]?.url, '/nlu/model/parse');
    assert.equal(received[0]?.contentType, 'application/json');
    assert.deepEqual(JSON.parse(received[0]?.body ?? ''), { text: 'where is my order' });
  }
});

test('without a ranking the one named intent is the answer; an unnamed intent is none', async () => {
  answerJson({ text: 'hi', intent: { name: 'greeting', confidence: 0.8 }, entities: [] });
  const one = await externalEngine({ url: base, dispatcher: allowed }).parse('hi', open());
  assert.ok(one.ok);
  assert.deepEqual(one.result.intents, [{ id: 'greeting', confidence: 0.8 }]);

  answerJson({ text: 'hi', intent: { name: null, confidence: 0 }, entities: [] });
  const none = await externalEngine({ url: base, dispatcher: allowed }).parse('hi', open());
  assert.ok(none.ok);
  assert.deepEqual(none.result.intents, []);
});

test('the auth token goes as the token query parameter, encoded', async () => {
  answerJson({ text: 'hi', intent: { name: 'greeting', confidence: 1 }, intent_ranking: [] });
  const token = 'a b&c/é?=';
  received.length = 0;
  const outcome = await externalEngine({ url: `${base}/`, authToken: token, dispatcher: allowed }).parse('hi', open());
  assert.ok(outcome.ok);
  const url = new URL(received[0]?.url ?? '', base);
  assert.equal(url.pathname, '/model/parse');
  assert.equal(url.searchParams.get('token'), token);
  assert.ok(!received[0]?.url.includes(' '));

  received.length = 0;
  await externalEngine({ url: base, authToken: null, dispatcher: allowed }).parse('hi', open());
  assert.equal(received[0]?.url, '/model/parse');
});

test('an error status, an answer that is not JSON or not of the parse shape, and an oversized answer fail', async () => {
  const engine = externalEngine({ url: base, dispatcher: allowed });
  handler = (_request, response) => {
    response.statusCode = 500;
    response.end('{"error":"boom"}');
  };
  assert.match(failure(await engine.parse('hi', open())).message, /HTTP 500/);

  handler = (_request, response) => response.end('<html>not json</html>');
  assert.match(failure(await engine.parse('hi', open())).message, /other than JSON/);

  for (const shape of [[1, 2], { text: 'hi' }, { intent_ranking: [{ name: 'a' }] }, { intent_ranking: 'a' }, { intent: 'greeting' }]) {
    answerJson(shape);
    const outcome = failure(await engine.parse('hi', open()));
    assert.equal(outcome.reason, 'failed', JSON.stringify(shape));
    assert.match(outcome.message, /unexpected shape/);
  }

  answerJson({ text: 'x'.repeat(MAX_ANSWER_BYTES), intent: { name: 'a', confidence: 1 } });
  assert.match(failure(await engine.parse('hi', open())).message, /larger than/);

  // The connection is still usable after those.
  answerJson({ intent: { name: 'greeting', confidence: 1 } });
  assert.ok((await engine.parse('hi', open())).ok);
});

test('a server that does not answer in time is a timeout when the signal aborts', async () => {
  handler = () => undefined;
  const started = performance.now();
  const outcome = failure(await externalEngine({ url: base, dispatcher: allowed }).parse('hi', AbortSignal.timeout(150)));
  const took = performance.now() - started;
  assert.equal(outcome.reason, 'timeout');
  assert.ok(took >= 140 && took < 2000, `took ${took.toFixed(0)} ms`);
});

test('an aborted signal is a timeout without a call', async () => {
  received.length = 0;
  const controller = new AbortController();
  controller.abort();
  assert.equal(failure(await externalEngine({ url: base, dispatcher: allowed }).parse('hi', controller.signal)).reason, 'timeout');
  assert.equal(received.length, 0);
});

test('a private address is refused unless NLP_ALLOWLIST lets it through', async () => {
  answerJson({ intent: { name: 'greeting', confidence: 1 } });
  received.length = 0;
  for (const url of [base, `http://localhost:${port}`]) {
    const outcome = failure(await externalEngine({ url, dispatcher: guarded }).parse('hi', open()));
    assert.equal(outcome.reason, 'failed');
    assert.match(outcome.message, /^Refused to call .*NLP_ALLOWLIST/, url);
  }
  assert.equal(received.length, 0);

  const outcome = await externalEngine({ url: base, dispatcher: allowed }).parse('hi', open());
  assert.ok(outcome.ok);
  assert.equal(received.length, 1);
});

test('a server that cannot be reached, or a URL that is not one, fails', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  assert.match(
    failure(await externalEngine({ url: `http://127.0.0.1:${closedPort}`, dispatcher: allowed }).parse('hi', open())).message,
    /could not be reached/,
  );
  assert.match(failure(await externalEngine({ url: 'not a url', dispatcher: allowed }).parse('hi', open())).message, /not a valid URL/);
  assert.match(failure(await externalEngine({ url: 'ftp://example.com', dispatcher: allowed }).parse('hi', open())).message, /not an http/);
});
