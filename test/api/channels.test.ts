import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';

for (const { dialect, skip } of await dialects()) {
  describe(`Channels API (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(dialect);
    });
    after(async () => s?.close());

    test('create answers 201 with Location and the service_chat body exactly', async () => {
      const res = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat', webhook: { url: 'https://example.com/hook' } });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('location'), `${s.baseUrl}/channels/${res.body.id}`);
      assert.deepEqual(Object.keys(res.body).sort(), ['id', 'mode', 'name', 'type', 'webhook']);
      assert.match(res.body.id, /^[1-9][0-9]*$/);
      assert.ok(Number(res.body.id) < 2 ** 53);
      assert.equal(res.body.mode, 'production');
      assert.match(res.body.webhook.secret, /^[A-Za-z0-9]{30}$/);
      assert.equal(res.body.webhook.ssl_verification, true);
      const got = await s.api.get(`/v1/channels/${res.body.id}`);
      assert.deepEqual(got.body, res.body);
    });

    test('list is oldest first with x-total-count and max/offset', async () => {
      const { api } = await s.newAccount();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await api.post('/v1/channels', { type: 'service_chat', name: `c${i}` })).body.id);
      const all = await api.get('/v1/channels');
      assert.equal(all.headers.get('x-total-count'), '3');
      assert.deepEqual(all.body.map((c: { id: string }) => c.id), ids);
      const page = await api.get('/v1/channels?max=1&offset=1');
      assert.deepEqual(page.body.map((c: { id: string }) => c.id), [ids[1]]);
      assert.equal(page.headers.get('x-total-count'), '3');
    });
  });
}
