import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { assertErrorBody } from '../helpers/error-format.js';

/** Names every plain object has through its prototype: never settings, fields or data keys. */
const BUILT_INS = ['toString', 'constructor', 'hasOwnProperty', 'valueOf', '__proto__', 'isPrototypeOf', '__defineGetter__'];

for (const { dialect, skip } of await dialects()) {
  describe(`Security: built-in property names are not data (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestApp(dialect);
    });
    after(async () => s?.close());

    const refused = (res: { status: number; body: any }, field: string) => {
      assert.equal(res.status, 422, `${field}: ${JSON.stringify(res.body)}`);
      assertErrorBody(res.body, 422, field);
      assert.equal(res.body.errors[0].message, `Property '${field}' is not supported.`);
      assert.equal(res.body.errors[0].field, field);
    };

    test('settings keys named like built-ins: 422 not supported, nothing stored', async () => {
      const mobile = {
        type: 'mobile',
        name: 'SMS',
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: '+420601000111', access_token: 'sms-token', signing_key: 'sms-signing' },
      };
      for (const body of [{ type: 'service_chat', name: 'chat' }, mobile]) {
        const created = await s.api.post('/v1/channels', body);
        assert.equal(created.status, 201, created.text);
        const id = created.body.id as string;
        const before = (await s.api.get(`/v1/channels/${id}/settings`)).body;
        for (const key of BUILT_INS) {
          refused(await s.api.patch(`/v1/channels/${id}/settings`, `{${JSON.stringify(key)}: ["https://shop.example.com"]}`), key);
          refused(await s.api.patch(`/v1/channels/${id}/settings`, `{${JSON.stringify(key)}: null}`), key);
        }
        assert.deepEqual((await s.api.get(`/v1/channels/${id}/settings`)).body, before);
      }
    });

    test('a built-in name anywhere in a body is refused with its path', async () => {
      const id = (await s.api.post('/v1/channels', { type: 'service_chat', name: 'metadata' })).body.id as string;
      const send = (metadata: string) =>
        s.api.post('/v1/messages', `{"channel":{"id":"${id}"},"contact":{"id":"1"},"content":{"type":"text","payload":"x"},"metadata":${metadata}}`);
      refused(await send('{"__proto__": {"admin": true}}'), 'metadata.__proto__');
      refused(await send('{"a": [{"__proto__": 1}]}'), 'metadata.a[0].__proto__');
      refused(await send('{"\\u005f_proto__": 1}'), 'metadata.__proto__');
      refused(await send('{"constructor": {"prototype": {"polluted": true}}}'), 'metadata.constructor');
      refused(await s.api.post('/v1/channels', '{"type":"service_chat","name":"x","__proto__":{"type":"rbm"}}'), '__proto__');
      for (const key of BUILT_INS.filter((k) => k !== '__proto__')) {
        refused(await s.api.post('/v1/channels', `{"type":"service_chat","name":"x",${JSON.stringify(key)}:1}`), key);
        refused(await s.api.patch(`/v1/channels/${id}`, `{${JSON.stringify(key)}:1}`), key);
      }
      assert.equal(({} as Record<string, unknown>).admin, undefined);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  });
}
