import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { ConnectorRegistry } from '../../src/connectors/connector.js';

// Channels show their platform credentials in clear, as the specification's Channel object does;
// beyond it, `?secrets=omit` on List, Get, Create and Update Channel leaves them out, with
// `webhook.secret`, and nothing else.

const webhook = { url: 'https://example.com/hook' };

/** A body per type with credentials, and where they show in the answer. */
const CASES: Array<{ body: Record<string, unknown>; key: string; secrets: Record<string, string> }> = [
  {
    body: { type: 'socialnet_chat', name: 'Page', webhook, socialnet_page: { id: '1234', access_token: 'page-token-1' } },
    key: 'socialnet_page',
    secrets: { access_token: 'page-token-1' },
  },
  {
    body: {
      type: 'mobile',
      name: 'SMS',
      mode: 'test',
      webhook,
      provider: { type: 'smsprovider', sender_id: '+420601000111', access_token: 'sms-token', signing_key: 'sms-signing' },
    },
    key: 'provider',
    secrets: { access_token: 'sms-token', signing_key: 'sms-signing' },
  },
  { body: { type: 'appmsg', name: 'App', webhook, appmsg: { access_token: 'appmsg-token' } }, key: 'appmsg', secrets: { access_token: 'appmsg-token' } },
  { body: { type: 'botmsg', name: 'Bot', webhook, botmsg: { access_token: '123:bot-token' } }, key: 'botmsg', secrets: { access_token: '123:bot-token' } },
  {
    body: {
      type: 'email',
      name: 'Mail',
      webhook,
      provider: { type: 'mailprovider', access_token: 'mail-key', webhook_signing_key: 'mail-signing', sender: { email: 'shop@example.com', name: 'Shop' } },
    },
    key: 'provider',
    // The provider's webhook signing key is write-only: never shown.
    secrets: { access_token: 'mail-key' },
  },
];

/** The answer without the secrets: what `?secrets=omit` must show. */
function withoutSecrets(channel: Record<string, any>, key: string, fields: string[]): Record<string, any> {
  const own = { ...channel[key] };
  for (const field of fields) delete own[field];
  const { secret: _secret, ...hook } = channel.webhook;
  return { ...channel, webhook: hook, [key]: own };
}

for (const { dialect, skip } of await dialects()) {
  describe(`Channels API: secrets shown or left out (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      // No platform is asked: the credentials are taken as given.
      s = await startTestApp(dialect, { connectors: new ConnectorRegistry() });
    });
    after(async () => s?.close());

    for (const { body, key, secrets } of CASES) {
      test(`${String(body.type)}: in clear by default; ?secrets=omit leaves out ${Object.keys(secrets).join(', ')} and webhook.secret on create, get, list and update`, async () => {
        const fields = Object.keys(secrets);
        const made = await s.api.post('/v1/channels?secrets=omit', body);
        assert.equal(made.status, 201, made.text);
        const id = made.body.id as string;

        // The default stays as the specification shows the Channel object.
        const full = await s.api.get(`/v1/channels/${id}`);
        assert.equal(full.status, 200);
        for (const [field, value] of Object.entries(secrets)) assert.equal(full.body[key][field], value, `${key}.${field} in clear`);
        assert.match(full.body.webhook.secret, /^[A-Za-z0-9]{30}$/);
        assert.deepEqual((await s.api.get(`/v1/channels/${id}?secrets=include`)).body, full.body);

        const got = await s.api.get(`/v1/channels/${id}?secrets=omit`);
        assert.equal(got.status, 200);
        assert.deepEqual(got.body, withoutSecrets(full.body, key, fields));
        assert.doesNotMatch(JSON.stringify(got.body), new RegExp([...Object.values(secrets), full.body.webhook.secret].join('|')));

        // Create and update answer the list placement: compare with the default of the same.
        const listed = (await s.api.get('/v1/channels?max=100')).body.find((c: { id: string }) => c.id === id);
        assert.deepEqual(made.body, withoutSecrets(listed, key, fields));
        const listedOmitted = (await s.api.get('/v1/channels?max=100&secrets=omit')).body.find((c: { id: string }) => c.id === id);
        assert.deepEqual(listedOmitted, withoutSecrets(listed, key, fields));

        const renamed = await s.api.patch(`/v1/channels/${id}?secrets=omit`, { name: 'Renamed' });
        assert.equal(renamed.status, 200, renamed.text);
        assert.deepEqual(renamed.body, { ...withoutSecrets(listed, key, fields), name: 'Renamed' });
        const renamedFull = await s.api.patch(`/v1/channels/${id}`, { name: 'Renamed again' });
        for (const [field, value] of Object.entries(secrets)) assert.equal(renamedFull.body[key][field], value);
      });
    }

    test('the OpenAPI document offers secrets on List, Get, Create and Update Channel, marked beyond the specification', async () => {
      const doc = (await s.api.get('/v1/openapi.json')).body;
      const operations = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) => Object.values(item));
      for (const id of ['listChannels', 'getChannel', 'createChannel', 'updateChannel']) {
        const operation = operations.find((o) => o.operationId === id);
        const param = operation?.parameters?.find((p: any) => p.name === 'secrets' && p.in === 'query');
        assert.ok(param, `${id} takes secrets`);
        assert.equal(param.required ?? false, false);
        assert.ok(param['x-beyond-specification'] === true || param.schema?.['x-beyond-specification'] === true, `${id}: ${JSON.stringify(param)}`);
        assert.match(JSON.stringify(param), /omit/);
      }
    });

    test('a channel without webhook or credentials looks the same either way; another value of secrets is a 422 naming it', async () => {
      const made = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' });
      const plain = await s.api.get(`/v1/channels/${made.body.id}`);
      assert.deepEqual((await s.api.get(`/v1/channels/${made.body.id}?secrets=omit`)).body, plain.body);
      const bad = await s.api.get(`/v1/channels/${made.body.id}?secrets=hide`);
      assert.equal(bad.status, 422, bad.text);
      assert.equal(bad.body.errors[0].field, 'secrets');
    });
  });
}
