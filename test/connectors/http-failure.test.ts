import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { httpFailure, retryableStatus } from '../../src/connectors/http-failure.js';
import { httpCall, type HttpAnswer } from '../../src/connectors/http.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');

function answer(status: number, headers: Record<string, string> = {}): HttpAnswer {
  return { status, headers: { get: (name) => headers[name.toLowerCase()] ?? null }, text: '' };
}

test('429 is rate_limited and waits for Retry-After in seconds or as a date', () => {
  assert.deepEqual(httpFailure(answer(429, { 'retry-after': '7' }), NOW), {
    ok: false,
    retryable: true,
    code: 'rate_limited',
    message: 'The platform asked to slow down (HTTP 429).',
    retryAfterMs: 7000,
  });
  const dated = httpFailure(answer(429, { 'retry-after': new Date(NOW + 90_000).toUTCString() }), NOW);
  assert.equal(dated.retryAfterMs, 90_000);
});

test('429 without a readable Retry-After is rate_limited with no wait of its own', () => {
  for (const headers of [{}, { 'retry-after': '' }, { 'retry-after': 'soon' }, { 'retry-after': '-5' }] as Record<string, string>[]) {
    const failure = httpFailure(answer(429, headers), NOW);
    assert.equal(failure.code, 'rate_limited');
    assert.equal(failure.retryable, true);
    assert.equal('retryAfterMs' in failure, false, JSON.stringify(headers));
  }
});

test("a wait the platform gave in its body wins over the header; the platform's code is not kept for a 429", () => {
  const failure = httpFailure(answer(429, { 'retry-after': '7' }), NOW, { code: 88, message: 'Too many', retryAfterMs: 34_000 });
  assert.deepEqual(failure, { ok: false, retryable: true, code: 'rate_limited', message: 'Too many', retryAfterMs: 34_000 });
});

test("408 and every 5xx pass with time; the code is the platform's, else the status", () => {
  for (const status of [408, 500, 502, 503, 504, 599]) {
    const failure = httpFailure(answer(status), NOW);
    assert.deepEqual(failure, { ok: false, retryable: true, code: String(status), message: `The platform answered HTTP ${status}.` });
  }
  assert.deepEqual(httpFailure(answer(503), NOW, { code: 'backend_down', message: 'Try later' }), {
    ok: false,
    retryable: true,
    code: 'backend_down',
    message: 'Try later',
  });
  assert.equal(httpFailure(answer(500), NOW, { code: null }).code, '500');
});

test('other statuses are refusals that trying again will not change', () => {
  for (const status of [400, 401, 403, 404, 407, 409, 422, 428, 430, 499, 201, 302]) {
    const failure = httpFailure(answer(status), NOW);
    assert.equal(failure.retryable, false, String(status));
    assert.equal(failure.code, String(status));
    assert.equal('retryAfterMs' in failure, false);
  }
  // A Retry-After on a refusal does not make it a wait.
  assert.equal('retryAfterMs' in httpFailure(answer(400, { 'retry-after': '5' }), NOW), false);
  assert.deepEqual(
    [407, 408, 409, 428, 429, 430, 499, 500].map((s) => retryableStatus(s)),
    [false, true, false, false, true, false, false, true],
  );
});

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

test('a platform that cannot be reached, or does not answer in time, is retryable (unreachable, timeout)', async () => {
  // A port that was just free: nothing listens there.
  const closed = createServer();
  const port = await listening(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const unreachable = await httpCall(`http://127.0.0.1:${port}/send`, { method: 'POST', body: '{}' }, 2000);
  assert.equal(unreachable.ok, false);
  assert.ok(!unreachable.ok && unreachable.retryable && unreachable.code === 'unreachable', JSON.stringify(unreachable));

  // A server that takes the connection and never answers.
  const silent = createServer(() => {});
  const silentPort = await listening(silent);
  try {
    const late = await httpCall(`http://127.0.0.1:${silentPort}/send`, { method: 'POST', body: '{}' }, 100);
    assert.ok(!late.ok && late.retryable && late.code === 'timeout', JSON.stringify(late));
  } finally {
    silent.close();
  }
});
