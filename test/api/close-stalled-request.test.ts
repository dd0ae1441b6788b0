import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestServer } from '../helpers/runtime.js';
import { CLOSE_GRACE_MS } from '../../src/runtime.js';

test('closing the service ends a request that never completes once the grace has passed, instead of waiting for ever', { timeout: 20_000 }, async () => {
  const s = await startTestServer('sqlite');
  const { port } = new URL(s.origin);
  const socket = connect(Number(port), '127.0.0.1');
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  try {
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // A request whose body never arrives in full: the server waits for the rest.
    socket.write(
      `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${s.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"channel":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await s.runtime.close();
    const took = Date.now() - started;
    assert.ok(took >= CLOSE_GRACE_MS - 100, `the request had its grace (${took} ms)`);
    await closed;
  } finally {
    socket.destroy();
    await s.db.drop();
  }
});
