import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';
import { rawRequest } from '../helpers/raw-http.js';
import { assertErrorBody } from '../helpers/error-format.js';

const nested = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

for (const { dialect, skip } of await dialects()) {
  describe(`Security: deep bodies and long values (${dialect})`, { skip }, () => {
    let s: TestServer;
    let channelId: string;
    before(async () => {
      s = await startTestServer(dialect);
      const created = await s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: '+420601000111', access_token: 'sms-token', signing_key: 'sms-signing' },
      });
      assert.equal(created.status, 201, created.text);
      channelId = created.body.id;
    });
    after(async () => s?.close());

    const send = (metadata: string) =>
      s.api.post(
        '/v1/messages',
        `{"channel":{"id":"${channelId}"},"contact":{"phone_number":"+420601234567"},"content":{"type":"text","payload":"deep"},"metadata":${metadata}}`,
      );

    test('a body nested deeper than 64 levels: 400 in the error format; 64 levels, and brackets in strings, are accepted', async () => {
      // The body is one level; the metadata object and the 62 below it make 64.
      const ok = await send(nested(63));
      assert.equal(ok.status, 201, ok.text.slice(0, 300));
      for (const body of [nested(64), nested(5000), '['.repeat(100_000) + ']'.repeat(100_000)]) {
        const res = body.startsWith('[') ? await s.api.post('/v1/channels', `{"type":"service_chat","name":${body}}`) : await send(body);
        assert.equal(res.status, 400, res.text.slice(0, 300));
        assertErrorBody(res.body, 400);
        assert.equal(res.body.errors[0].message, 'Request body nests arrays and objects more than 64 levels deep.');
      }
      // Brackets inside strings are text, not nesting.
      const text = await send(JSON.stringify({ note: '[{'.repeat(500), escaped: '\\"[[[[' }));
      assert.equal(text.status, 201, text.text.slice(0, 300));
    });

    test('a rejected value is shown as a short excerpt, never whole', async () => {
      const longType = await s.api.post('/v1/channels', { type: 'x'.repeat(100_000), name: 'n' });
      assert.equal(longType.status, 422);
      assertErrorBody(longType.body, 422);
      assert.ok(longType.text.length < 2000, `${longType.text.length} characters answered`);
      assert.equal(longType.body.errors[0].rejected_value, `${'x'.repeat(200)}…`);

      const bigObject = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key${i}`, 'value']));
      const objectName = await s.api.post('/v1/channels', { type: 'service_chat', name: bigObject });
      assert.equal(objectName.status, 422);
      assertErrorBody(objectName.body, 422);
      const excerpt = objectName.body.errors[0].rejected_value;
      assert.equal(typeof excerpt, 'string');
      assert.ok(excerpt.startsWith('{"key0":"value","key1":"value"') && excerpt.endsWith('…') && excerpt.length <= 201, excerpt);

      const small = await s.api.post('/v1/channels', { type: 'service_chat', name: { short: [1, 2] } });
      assert.deepEqual(small.body.errors[0].rejected_value, { short: [1, 2] }, 'short values are shown as they are');
    });

    test('text holding the NUL character (U+0000) is refused with 422 naming its field, on both stores alike', async () => {
      const name = await s.api.post('/v1/channels', { type: 'service_chat', name: 'a\u0000b' });
      assert.equal(name.status, 422, name.text);
      assertErrorBody(name.body, 422);
      assert.equal(name.body.errors[0].field, 'name');
      const deep = await send(JSON.stringify({ list: ['ok', { note: '\u0000' }] }));
      assert.equal(deep.status, 422, deep.text);
      assert.equal(deep.body.errors[0].field, 'metadata.list[1].note');
      const key = await send('{"a\\u0000":1}');
      assert.equal(key.status, 422, key.text);
      assert.equal(key.body.errors[0].field, 'metadata.a\u0000');
      // The escape of a backslash followed by "u0000" is text, not NUL.
      const lookalike = await s.api.post('/v1/channels', { type: 'service_chat', name: 'a\\u0000b' });
      assert.equal(lookalike.status, 201, lookalike.text);
    });
  });

  describe(`Security: every error in the error format (${dialect})`, { skip }, () => {
    let s: TestServer;
    let anonymous: ApiClient;
    let host: string;
    before(async () => {
      s = await startTestServer(dialect);
      anonymous = new ApiClient(s.origin, null);
      host = new URL(s.origin).host;
    });
    after(async () => s?.close());

    test('a path that is not valid percent-encoding: 400', async () => {
      for (const client of [s.api, anonymous]) {
        const res = await client.get('/v1/channels/%ZZ');
        assert.equal(res.status, 400);
        assertErrorBody(res.body, 400);
      }
    });

    test('an overlong id reaches its route: 401 without a token, 404 with one', async () => {
      const path = `/v1/channels/${'9'.repeat(5000)}`;
      assert.equal((await anonymous.get(path)).status, 401);
      const res = await s.api.get(path);
      assert.equal(res.status, 404);
      assertErrorBody(res.body, 404);
    });

    test('what the HTTP parser refuses: 431 for oversized headers, 400 for malformed requests', async () => {
      const big = await rawRequest(s.origin, `GET /v1/channels HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      assert.equal(big.status, 431);
      assertErrorBody(big.body, 431);
      const malformed = [
        `GET /v1/channels HTTP/1.1\r\nHost ${host}\r\n\r\n`,
        `GET /v1/channels HTTP/9.9\r\nHost: ${host}\r\n\r\n`,
        `FETCH!! /v1/channels HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
        `POST /v1/channels HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n12345`,
        `POST /v1/channels HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n`,
        `GET /v1/channels HTTP/1.1\r\nHost: ${host}\r\nX-Bad: a\u0001b\r\n\r\n`,
      ];
      for (const bytes of malformed) {
        const res = await rawRequest(s.origin, bytes);
        assert.equal(res.status, 400, JSON.stringify(bytes));
        assertErrorBody(res.body, 400, JSON.stringify(bytes));
      }
    });

    test("Fastify's own errors: content type, body length, JSON", async () => {
      const cases: Array<[Record<string, string>, string, number]> = [
        [{ 'content-type': 'text/xml' }, '<a/>', 415],
        [{ 'content-type': 'application/json' }, '{"type": ', 400],
        [{ 'content-type': 'application/x-www-form-urlencoded' }, 'type=service_chat', 415],
      ];
      for (const [headers, body, status] of cases) {
        const res = await s.api.post('/v1/channels', body, headers);
        assert.equal(res.status, status, JSON.stringify(headers));
        assertErrorBody(res.body, status, JSON.stringify(headers));
      }
      const short = await rawRequest(
        s.origin,
        `POST /v1/channels HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${s.token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{"type":"service_chat"}`,
      );
      assert.ok(short.status >= 400 && short.status < 500, String(short.status));
      assertErrorBody(short.body, short.status);
    });

    test('a refused platform handshake answers in the error format', async () => {
      const res = await anonymous.get('/v1/inbound/socialnet_chat?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1');
      assert.equal(res.status, 403);
      assertErrorBody(res.body, 403);
    });
  });
}
