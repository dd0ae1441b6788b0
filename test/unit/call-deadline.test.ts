import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { CallDeadline } from '../../src/lib/call-deadline.js';

describe('CallDeadline: the signal that cuts an undici call off', { timeout: 10_000 }, () => {
  let server: Server;
  let origin: string;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/hang') return; // never answers
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  test('a call with no answer is cut off at the deadline, and says it timed out', async () => {
    const deadline = new CallDeadline(150);
    const started = performance.now();
    await assert.rejects(request(`${origin}/hang`, { signal: deadline.signal }));
    const elapsed = performance.now() - started;
    deadline.clear();
    assert.equal(deadline.timedOut, true);
    assert.ok(elapsed >= 140 && elapsed < 5000, `cut off after ${elapsed} ms`);
  });

  test('cancel() cuts a call off at once, and it did not time out', async () => {
    const deadline = new CallDeadline(60_000);
    const call = request(`${origin}/hang`, { signal: deadline.signal });
    setTimeout(() => deadline.cancel(), 50);
    await assert.rejects(call);
    deadline.clear();
    assert.equal(deadline.timedOut, false);
  });

  test('a call answered in time is not touched: a cleared deadline never fires', async () => {
    const deadline = new CallDeadline(100);
    const res = await request(`${origin}/ok`, { signal: deadline.signal });
    assert.equal(await res.body.text(), 'ok');
    deadline.clear();
    // Past the deadline: cleared, it never fires.
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(deadline.timedOut, false);
  });
});
