import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { AdminClient } from './auth-client.js';

// GET /admin/api/session/state: the administration app's first question on every page. Without a
// session it answers 204, not an error, so the sign-in and setup pages log nothing in the
// browser's console; with one, the same answer as GET /admin/api/session.

const PASSWORD = 'correct horse battery';

for (const { dialect, skip, test } of await dialects()) {
  describe(`administration: the session state (${dialect})`, { skip }, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(dialect, { env: { ADMIN_PASSWORD_COST: '10' } });
    });
    after(async () => server?.close());

    test('204 without a session, with an unknown cookie and after sign-out; the session while signed in', async () => {
      await server.runtime.services.users.createUser({ accountId: server.accountId, email: 'ana@example.com', role: 'owner', password: PASSWORD });
      const client = new AdminClient(server.origin);
      const none = await client.get('/admin/api/session/state');
      assert.equal(none.status, 204, none.text);
      assert.equal(none.text, '');
      assert.equal((await client.get('/admin/api/session')).status, 401, 'GET /session still says 401');
      assert.equal((await client.get('/admin/api/session/state', { cookie: 'parley_session=made-up' })).status, 204);

      const signedIn = await client.signIn('ana@example.com', PASSWORD);
      assert.equal(signedIn.status, 200, signedIn.text);
      const state = await client.get('/admin/api/session/state');
      assert.equal(state.status, 200, state.text);
      assert.deepEqual(state.body, (await client.get('/admin/api/session')).body);
      assert.equal(state.body.user.email, 'ana@example.com');

      const ended = client.cookie;
      assert.equal((await client.delete('/admin/api/session')).status, 204);
      assert.equal((await client.get('/admin/api/session/state', { cookie: `parley_session=${ended}` })).status, 204, 'the ended session is none');
    });
  });
}
