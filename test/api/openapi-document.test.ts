import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { BASIC } from '@hyperjump/json-schema/experimental';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { createChannel } from './messages-fixtures.js';

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(document: Json): Array<{ path: string; method: string; op: Json }> {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((method) => ({ path, method, op: (item as Json)[method] as Json })),
  );
}

/** The operations of the messaging API and the health checks: the administration app's own API has rules of its own. */
const apiOperations = (document: Json) => operations(document).filter(({ path }) => !path.startsWith('/admin/'));

const isPublic = (op: Json) => Array.isArray(op.security) && op.security.length === 0;

/** GET over a real socket with a Host header of our choosing (fetch does not let one set it). */
function getWithHost(origin: string, path: string, host: string, token?: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, headers: { host, ...(token ? { authorization: `Bearer ${token}` } : {}) }, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

describe('The OpenAPI document', () => {
  let s: TestServer;
  let document: Json;
  let dir: string;
  before(async () => {
    s = await startTestServer('sqlite');
    document = (await s.api.get('/v1/openapi.json')).body;
    dir = mkdtempSync(join(tmpdir(), 'parley-openapi-'));
  });
  after(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await s?.close();
  });

  test('is strictly valid OpenAPI 3.1, its schemas checked against the OpenAPI dialect', { timeout: 60_000 }, async () => {
    const result = await validate('https://spec.openapis.org/oas/3.1/schema-base', document as never, BASIC);
    assert.deepEqual(result.valid ? [] : result.errors, []);

    // The validator is strict where it matters: a discriminator given as a bare name is refused.
    const broken = structuredClone(document);
    broken.components.schemas.Content.discriminator = 'type';
    assert.equal((await validate('https://spec.openapis.org/oas/3.1/schema-base', broken as never, BASIC)).valid, false);
  });

  test('every operation has a unique operationId; shared shapes are named components', () => {
    const ids = operations(document).map(({ path, method, op }) => {
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${method} ${path} has an operationId`);
      return op.operationId as string;
    });
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.includes('sendMessage') && ids.includes('createChannel') && ids.includes('listChannels'));

    const names = Object.keys(document.components.schemas);
    for (const name of [
      'Channel',
      'Message',
      'Contact',
      'Error',
      'Content',
      'TextContent',
      'QuickReply',
      'CreateChannel',
      'SendMessage',
      'Settings',
      'Delivery',
    ]) {
      assert.ok(names.includes(name), `component ${name}`);
    }
    assert.ok(!names.some((n) => /^def-\d+$/.test(n)), names.join(', '));
    assert.deepEqual(document.paths['/channels/{channel_id}'].get.responses['200'].content['application/json'].schema, {
      $ref: '#/components/schemas/Channel',
    });
    assert.deepEqual(document.components.schemas.Content.discriminator.mapping.text, '#/components/schemas/TextContent');
  });

  test('documents the headers: Idempotency-Key, Location, x-total-count and the rate limit on every authenticated answer', () => {
    const send = document.paths['/messages'].post;
    const key = (send.parameters as Json[]).find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    assert.ok(key, 'Send Message takes Idempotency-Key');
    assert.equal(key.required, false);
    assert.equal(key.schema.maxLength, 255);

    for (const { path, method, op } of apiOperations(document)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const headers = (response.headers ?? {}) as Json;
        const where = `${method} ${path} ${status}`;
        if (status === '201') assert.equal(headers.Location?.required, true, `${where}: Location`);
        if (status === '200' && response.content?.['application/json']?.schema?.type === 'array') {
          assert.equal(headers['x-total-count']?.required, true, `${where}: x-total-count`);
        }
        const rated = !isPublic(op) && status !== '401' && status !== '503';
        for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
          assert.equal(name in headers, rated, `${where}: ${name}`);
        }
      }
    }
  });

  test('documents the errors each operation can answer, in the error body of the specification', () => {
    for (const { path, method, op } of apiOperations(document)) {
      const statuses = Object.keys(op.responses);
      const where = `${method} ${path}`;
      for (const status of statuses.filter((c) => Number(c) >= 400)) {
        assert.deepEqual(op.responses[status].content['application/json'].schema, { $ref: '#/components/schemas/Error' }, `${where} ${status}`);
        assert.notEqual(op.responses[status].description, 'Default Response');
      }
      const expected = ['500'];
      if (!isPublic(op)) expected.push('401', '429');
      if (op.requestBody) expected.push('400', '413', '415', '422');
      if (op.parameters?.some((p: Json) => p.in === 'path')) expected.push('404');
      if (op.parameters?.some((p: Json) => p.in === 'query')) expected.push('422');
      for (const status of expected) assert.ok(statuses.includes(status), `${where} documents ${status}`);
      if (isPublic(op)) assert.ok(!statuses.includes('401'), `${where} is public`);
    }
    assert.ok('502' in document.paths['/messages'].post.responses);
    assert.ok('404' in document.paths['/messages'].post.responses, 'an unknown channel');
    assert.ok(!('404' in document.paths['/channels'].get.responses));

    const error = document.components.schemas.Error;
    assert.deepEqual(error.required, ['timestamp', 'status', 'errors']);
    assert.deepEqual(Object.keys(error.properties.errors.items.properties), ['message', 'field', 'rejected_value']);
  });

  test("documents the administration app's own API under its tag, behind the session, apart from the /v1 operations", () => {
    const admin = operations(document).filter(({ path }) => path.startsWith('/admin/'));
    const ids = admin.map(({ op }) => op.operationId as string);
    for (const id of ['adminSignIn', 'adminGetSession', 'adminListUsers', 'adminListTokens', 'adminOverview', 'adminListChannelTypes'])
      assert.ok(ids.includes(id), id);
    for (const { path, method, op } of admin) {
      const where = `${method} ${path}`;
      assert.deepEqual(op.tags, ['Administration'], where);
      assert.match(op.operationId, /^admin[A-Z]/, where);
      assert.deepEqual(op.servers, [{ url: '/' }], `${where}: paths from the root, not from /v1`);
      if (!isPublic(op)) {
        assert.deepEqual(op.security, [method === 'get' ? { session: [] } : { session: [], csrf: [] }], where);
        for (const status of ['401', '403', '429', '500']) assert.ok(status in op.responses, `${where} documents ${status}`);
      }
    }
    assert.ok(isPublic(document.paths['/admin/api/session'].post), 'sign-in needs no session');
    assert.ok(!Object.keys(document.paths).some((p) => p.startsWith('/admin/api/v1')), 'the token groups mounted again are not repeated');
    assert.equal(document.components.securitySchemes.session.in, 'cookie');
    assert.ok(document.tags.some((t: Json) => t.name === 'Administration'));
  });

  test('enumerates the modes each channel type takes', () => {
    const modes = (name: string) => document.components.schemas[name].properties.mode.enum;
    assert.deepEqual(modes('CreateMobileChannel'), ['production', 'test']);
    assert.deepEqual(modes('CreateRbmChannel'), ['production', 'test']);
    assert.deepEqual(modes('CreateAppmsgBusinessMessagesChannel'), ['production', 'test', 'shared']);
    assert.deepEqual(modes('CreateServiceChatChannel'), ['production']);
    assert.deepEqual(modes('UpdateAppmsgBusinessMessagesChannel'), ['production', 'test', 'shared']);
    assert.deepEqual(document.components.schemas.CreateChannel.discriminator, {
      propertyName: 'type',
      mapping: Object.fromEntries(
        ['service_chat', 'socialnet_chat', 'mobile', 'rbm', 'appmsg', 'appmsg_business_messages', 'botmsg', 'email'].map((t) => [
          t,
          `#/components/schemas/Create${t.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase())}Channel`,
        ]),
      ),
    });
  });

  test('says which parts go beyond the messaging API specification', () => {
    assert.match(document.info.description, /Beyond the messaging API specification/);
    const beyond = operations(document)
      .filter(({ op }) => op['x-beyond-specification'] === true)
      .map(({ op }) => op.operationId as string);
    assert.deepEqual(beyond.sort(), [
      'checkLiveness',
      'checkReadiness',
      'deleteNlpIntegration',
      'getCapabilities',
      'getFile',
      'getMessage',
      'getMetrics',
      'getNlpIntegration',
      'inviteTester',
      'listTesters',
      'listWebhookDeliveries',
      'parseWithNlpIntegration',
      'putNlpIntegration',
      'redeliverWebhookDelivery',
      'removeTester',
      'updateNlpIntegration',
    ]);
    for (const tag of ['Webhooks', 'Files', 'Operations', 'NLP']) {
      assert.match(document.tags.find((t: Json) => t.name === tag).description, /^Beyond the specification/);
    }
  });

  test('its servers entry is relative, so it works from any host name the server is reached by', async () => {
    const host = `docs.parley.test:${new URL(s.origin).port}`;
    const read = await getWithHost(s.origin, '/v1/openapi.json', host);
    assert.equal(read.status, 200);
    const server = read.body.servers[0].url as string;
    assert.doesNotMatch(server, /^[a-z]+:/i, 'no scheme or host of its own');
    const base = new URL(server, `http://${host}/v1/openapi.json`);
    assert.equal(base.host, host);

    const channelId = await createChannel(s.api, 'service_chat');
    const listed = await getWithHost(s.origin, `${base.pathname}/channels`, host, s.token);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.map((c: Json) => c.id),
      [channelId],
    );

    // The health checks sit outside the API path: their operations name the root.
    const liveness = document.paths['/healthz'].get;
    const health = await getWithHost(s.origin, new URL('healthz', new URL(liveness.servers[0].url, base)).pathname, host);
    assert.deepEqual(health, { status: 200, body: { status: 'ok' } });
  });

  test('every request example matches its schema; Send Message has one example per case, each naming its contact once', { timeout: 60_000 }, async () => {
    const file = join(dir, 'parley.openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const uri = pathToFileURL(file).href;
    let checked = 0;
    for (const { path, method, op } of operations(document)) {
      const media = op.requestBody?.content?.['application/json'];
      if (!media?.examples) continue;
      const pointer = `#/paths/${encodeURIComponent(path.replaceAll('~', '~0').replaceAll('/', '~1'))}/${method}/requestBody/content/application~1json/schema`;
      const check = await validate(`${uri}${pointer}`);
      for (const [name, example] of Object.entries(media.examples as Record<string, Json>)) {
        const result = check(example.value, BASIC);
        assert.equal(result.valid, true, `${op.operationId} example ${name}: ${JSON.stringify(result.valid ? [] : result.errors)}`);
        checked += 1;
      }
    }
    assert.ok(checked >= 10, `${checked} examples`);

    const examples = document.paths['/messages'].post.requestBody.content['application/json'].examples as Record<string, Json>;
    assert.ok(Object.keys(examples).length >= 4);
    const forms = new Set<string>();
    for (const [name, example] of Object.entries(examples)) {
      const given = ['id', 'phone_number', 'user_ref', 'email'].filter((k) => k in example.value.contact);
      assert.equal(given.length, 1, `${name} names its contact one way`);
      forms.add(given[0]!);
    }
    assert.ok(forms.has('id') && forms.has('phone_number'));
    assert.ok(
      Object.values(examples).some((e) => e.value.content.quick_replies?.length > 0),
      'a quick replies example',
    );
  });

  test('the test-mode SMS example is accepted as written, but for the channel id', async () => {
    const channelId = await createChannel(s.api, 'mobile', 'test');
    const example = document.paths['/messages'].post.requestBody.content['application/json'].examples.sms_test_mode.value;
    const res = await s.api.post('/v1/messages', { ...example, channel: { id: channelId } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.content, example.content);
  });
});
