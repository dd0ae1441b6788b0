import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/lib/logger.js';
import { startTestServer } from '../helpers/runtime.js';

// The request log's client address behind a reverse proxy: the address X-Forwarded-For names
// when the peer is one of TRUSTED_PROXIES, the peer itself otherwise (a client cannot name itself).

type Line = Record<string, unknown>;

async function serverLogging(env: Record<string, string>) {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  const server = await startTestServer('sqlite', { env, logger: createLogger('info', sink as never) });
  /** Asks for the channel list with these headers; answers the request's log line. */
  const request = async (headers: Record<string, string>): Promise<Line> => {
    const id = `trusted-proxy-${Math.random().toString(36).slice(2, 10)}`;
    const res = await fetch(`${server.origin}/v1/channels`, { headers: { authorization: `Bearer ${server.token}`, 'x-request-id': id, ...headers } });
    assert.equal(res.status, 200);
    for (let i = 0; i < 100; i++) {
      const line = lines.find((l) => l.reqId === id && l.msg === 'request');
      if (line) return line;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no request line for ${id}`);
  };
  return { server, request };
}

describe('TRUSTED_PROXIES and the request log', () => {
  test('unset: X-Forwarded-For is ignored, the request line names the peer', async () => {
    const { server, request } = await serverLogging({});
    try {
      assert.equal((await request({})).client, '127.0.0.1');
      assert.equal((await request({ 'x-forwarded-for': '203.0.113.7' })).client, '127.0.0.1');
    } finally {
      await server.close();
    }
  });

  test('the peer is a trusted proxy: the request line names the client X-Forwarded-For gives, skipping trusted hops', async () => {
    const { server, request } = await serverLogging({ TRUSTED_PROXIES: '127.0.0.1/8,10.0.0.0/8' });
    try {
      assert.equal((await request({ 'x-forwarded-for': '203.0.113.7' })).client, '203.0.113.7');
      // A client's own header before the proxy's: the nearest untrusted address counts.
      assert.equal((await request({ 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.1.2.3' })).client, '203.0.113.7');
      assert.equal((await request({})).client, '127.0.0.1', 'no header: the peer');
    } finally {
      await server.close();
    }
  });

  test('a peer not in the list is believed in nothing', async () => {
    const { server, request } = await serverLogging({ TRUSTED_PROXIES: '10.0.0.0/8' });
    try {
      assert.equal((await request({ 'x-forwarded-for': '203.0.113.7' })).client, '127.0.0.1');
    } finally {
      await server.close();
    }
  });
});
