import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { ADMIN_TEST_ENV, signedIn, type AdminClient } from './admin-data-client.js';

// The NLP tab asks for a channel's integration through the app's own route: null for none (no
// 404 for the browser to log), the same view as Get NLP Integration for one, and 404 only for a
// channel that is not the account's.

for (const { dialect, skip, test } of await dialects()) {
  describe(`administration: a channel's NLP integration or none (${dialect})`, { skip }, () => {
    let s: TestServer;
    let app: AdminClient;
    before(async () => {
      s = await startTestApp(dialect, { env: ADMIN_TEST_ENV });
      app = await signedIn(s, s.accountId, 'member');
    });
    after(async () => s?.close());

    test('null without an integration, the integration with one, 404 for a channel of another account or a bad id', async () => {
      const channel = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Chat' });
      const none = await app.get(`/channels/${channel.body.id}/nlp`);
      assert.equal(none.status, 200, none.text);
      assert.deepEqual(none.body, { integration: null });
      assert.equal((await s.api.get(`/v1/channels/${channel.body.id}/nlp`)).status, 404, 'the token API still says 404');

      const put = await s.api.request('PUT', `/v1/channels/${channel.body.id}/nlp`, { kind: 'external', url: 'https://nlu.example.com/' });
      assert.equal(put.status, 201, put.text);
      const some = await app.get(`/channels/${channel.body.id}/nlp`);
      assert.equal(some.status, 200, some.text);
      assert.deepEqual(some.body, { integration: (await s.api.get(`/v1/channels/${channel.body.id}/nlp`)).body });

      const other = await s.newAccount();
      const theirs = await other.api.post('/v1/channels', { type: 'service_chat', name: 'Theirs' });
      assert.equal((await app.get(`/channels/${theirs.body.id}/nlp`)).status, 404);
      assert.equal((await app.get('/channels/x1/nlp')).status, 404);
    });
  });
}
