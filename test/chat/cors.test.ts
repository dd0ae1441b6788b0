import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';

// The chat transport's CORS answers, read as a browser would: a whitelisted page gets its own
// origin back with credentials allowed (socket.io-client 2.x polls with credentials), on the
// handshake, on later polls and on preflights; any other page gets no credentials.

const PAGE = 'https://shop.example.com';
const OTHER = 'https://elsewhere.example.com';

for (const { dialect, skip } of await dialects()) {
  describe(`Web chat CORS (${dialect})`, { skip }, () => {
    let s: TestServer;
    let channelId = '';
    before(async () => {
      s = await startTestServer(dialect);
      channelId = (await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' })).body.id;
      assert.equal((await s.api.patch(`/v1/channels/${channelId}/settings`, { domains_whitelist: [PAGE] })).status, 200);
    });
    after(async () => s?.close());

    const polling = (eio: 3 | 4, channel: string | null, extra = '') =>
      `${s.origin}/socket.io/?EIO=${eio}&transport=polling&t=x&v=1${channel === null ? '' : `&channel_id=${channel}`}${extra}`;

    function assertCredentialed(res: Response, origin: string) {
      assert.equal(res.headers.get('access-control-allow-origin'), origin);
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
      assert.match(res.headers.get('vary') ?? '', /Origin/);
    }

    for (const eio of [3, 4] as const) {
      test(`EIO${eio} polling: a whitelisted page gets its origin and credentials on the handshake and the next polls`, async () => {
        const handshake = await fetch(polling(eio, channelId), { headers: { origin: PAGE } });
        assert.equal(handshake.status, 200);
        assertCredentialed(handshake, PAGE);
        const text = await handshake.text();
        const sid = /"sid":"([^"]+)"/.exec(text)?.[1];
        assert.ok(sid, text);
        // A later request of the same connection (here the client's first send) is answered the same way.
        const body = eio === 3 ? '2:40' : '40';
        const post = await fetch(polling(eio, channelId, `&sid=${sid}`), {
          method: 'POST',
          headers: { origin: PAGE, 'content-type': 'text/plain;charset=UTF-8' },
          body,
        });
        assert.equal(post.status, 200, await post.clone().text());
        assertCredentialed(post, PAGE);
        const poll = await fetch(polling(eio, channelId, `&sid=${sid}`), { headers: { origin: PAGE } });
        assert.equal(poll.status, 200);
        assertCredentialed(poll, PAGE);
        await poll.arrayBuffer();
      });
    }

    test('a preflight from a whitelisted page allows credentials, the methods and the asked headers', async () => {
      const res = await fetch(polling(3, channelId, '&sid=whatever'), {
        method: 'OPTIONS',
        headers: { origin: PAGE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      assert.equal(res.status, 204);
      assertCredentialed(res, PAGE);
      assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
      assert.equal(res.headers.get('access-control-allow-headers'), 'content-type');
      assert.ok(Number(res.headers.get('access-control-max-age')) > 0);
    });

    test('the whitelist matches the origin whatever its case; the answer repeats the origin as sent', async () => {
      const res = await fetch(polling(4, channelId), { headers: { origin: 'https://SHOP.example.com' } });
      assertCredentialed(res, 'https://SHOP.example.com');
      await res.arrayBuffer();
    });

    test('other pages, unknown channels and requests without a channel get no credentials (never a wildcard)', async () => {
      const other = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Other' });
      const cases: Array<[string, string | null]> = [
        [OTHER, channelId],
        [PAGE, other.body.id], // listed nowhere on that channel
        [PAGE, '999999999'],
        [PAGE, 'not-an-id'],
        [PAGE, null],
        ['null', channelId],
      ];
      for (const [origin, channel] of cases) {
        for (const method of ['GET', 'OPTIONS']) {
          const res = await fetch(polling(3, channel), {
            method,
            headers: method === 'GET' ? { origin } : { origin, 'access-control-request-method': 'POST' },
          });
          const what = `${method} ${origin} ${channel}`;
          assert.ok(res.status < 500, what);
          assert.equal(res.headers.get('access-control-allow-credentials'), null, what);
          assert.notEqual(res.headers.get('access-control-allow-origin'), '*', what);
          // The page may still read the answer without credentials (and learn it was refused).
          assert.equal(res.headers.get('access-control-allow-origin'), origin, what);
          await res.arrayBuffer();
        }
      }
    });

    test('a same-origin request (no Origin) gets no CORS headers', async () => {
      const res = await fetch(polling(4, channelId));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
      assert.equal(res.headers.get('access-control-allow-credentials'), null);
      await res.arrayBuffer();
    });
  });
}
