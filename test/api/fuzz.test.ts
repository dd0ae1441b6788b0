import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { rawRequest } from '../helpers/raw-http.js';
import { assertErrorBody } from '../helpers/error-format.js';
import { CONTENT_SAMPLES } from '../helpers/content-samples.js';
import { channelBody } from './messages-fixtures.js';
import { ConnectorRegistry, type Connector } from '../../src/connectors/connector.js';
import { CHANNEL_TYPES } from '../../src/schemas/channel-types.js';

/**
 * Every HTTP route of the app, found in the running app (so new routes are covered without
 * editing this file), called with malformed and hostile paths, headers and bodies, with and
 * without a valid token. Nothing may answer 5xx, and every error must be in the specification's
 * format. Bounded in count and time; a fixed seed (FUZZ_SEED) makes a failure reproducible.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_2026);
const MAX_REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 6000);
const MAX_MS = Number(process.env.FUZZ_MS ?? 15_000);
const PARALLEL = Number(process.env.FUZZ_PARALLEL ?? 8);

// ---------------------------------------------------------------------------------------------
// A small seeded PRNG (mulberry32) and choices.

class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile values.

const BUILT_INS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];
const ODD_TEXT = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  '\ud800',
  '\udfff',
  '\ud83d\ude00',
  '\u202eevil',
  'é',
  '\ufeff{}',
  '\u2028',
  'ﷺ',
  '𝕏'.repeat(300),
  '../../etc/passwd',
  '%ZZ',
  '%00',
  '%2e%2e%2f',
  '<script>alert(1)</script>',
  "' or 1=1 --",
  '${jndi:x}',
  '{{7*7}}',
  '1e309',
  '-0',
  '9007199254740993',
  '0x10',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  'https://',
  'javascript:alert(1)',
  'http://127.0.0.1:1/',
  ...BUILT_INS,
];

function hostileString(r: Random): string {
  if (r.chance(0.03)) return r.pick(['x', '\u00e9', '\ud83d\ude00', '[', '"']).repeat(r.int(10_000, 200_000));
  if (r.chance(0.2)) return 'a'.repeat(r.int(1, 3000));
  if (r.chance(0.2)) return String(r.int(-10, 10 ** 6));
  return r.pick(ODD_TEXT);
}

function hostileKey(r: Random): string {
  return r.chance(0.5)
    ? r.pick(BUILT_INS)
    : r.chance(0.5)
      ? hostileString(r).slice(0, 500)
      : r.pick(['type', 'id', 'payload', 'content', 'metadata', 'url', 'items']);
}

function hostileValue(r: Random, depth = 0): unknown {
  const roll = r.int(0, 13);
  if (depth > 6 && roll > 9) return null;
  switch (roll) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -1e308, 5e-324, 2 ** 53 + 2, -(2 ** 63), 123456789012345680000]);
    case 3:
    case 4:
      return hostileString(r);
    case 5:
      return [];
    case 6:
      return {};
    case 7:
      return Array.from({ length: r.int(1, 12) }, () => hostileValue(r, depth + 1));
    case 8:
      return Object.fromEntries(Array.from({ length: r.int(1, 6) }, () => [hostileKey(r), hostileValue(r, depth + 1)]));
    case 9: {
      // Deep chains around the nesting limit, and far beyond it (one per value, or the test's
      // own serialiser would overflow).
      if (depth > 0) return [[[]]];
      let v: unknown = hostileValue(r, 7);
      for (let i = r.pick([30, 60, 62, 63, 64, 65, 200, 2000]); i > 0; i--) v = r.chance(0.5) ? [v] : { a: v };
      return v;
    }
    case 10:
      return r.chance(0.1) ? Array.from({ length: 20_000 }, (_, i) => i) : [r.pick(BUILT_INS)];
    default:
      return hostileString(r);
  }
}

/** A copy of a valid body with one part replaced, removed, or joined by a hostile key. */
function mutate(r: Random, body: unknown): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  const paths: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        paths.push({ parent: v, key: i });
        walk(item);
      });
    } else if (v && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        paths.push({ parent: v as Record<string, unknown>, key: k });
        walk(item);
      }
    }
  };
  walk(copy);
  if (paths.length === 0) return hostileValue(r);
  const spot = r.pick(paths);
  const roll = r.int(0, 9);
  if (roll < 6) (spot.parent as Record<string | number, unknown>)[spot.key] = hostileValue(r);
  else if (roll < 8 && !Array.isArray(spot.parent)) delete spot.parent[spot.key as string];
  else if (!Array.isArray(spot.parent))
    Object.defineProperty(spot.parent, hostileKey(r), { value: hostileValue(r), enumerable: true, configurable: true, writable: true });
  return copy;
}

/** Percent-encoding of any text: lone surrogates become U+FFFD (raw invalid UTF-8 comes from the lists). */
const enc = (text: string) => encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

const BROKEN_JSON = [
  '{',
  '{"a":}',
  '[1,]',
  'nul',
  '{"a":1}{"b":2}',
  '\ufeff{}',
  "{'a':1}",
  '{"a":1,}',
  '1'.repeat(5000),
  '"\\ud800"',
  '{"a":"\\x41"}',
  '\u0000',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{}}}',
];

// ---------------------------------------------------------------------------------------------
// Routes of the running app.

interface RouteEntry {
  method: string;
  path: string;
}

/** Parses `app.printRoutes({ commonPrefix: false })`: each line a tree node, its methods in parentheses. */
export function routesOf(app: FastifyInstance): RouteEntry[] {
  const out: RouteEntry[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.search(/[├└]── /);
    if (at === -1) continue;
    const depth = at / 4;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(at + 4));
    if (!match) continue;
    const path = (stack[depth - 1] ?? '') + match[1];
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (match[2] ?? '').split(', ').filter(Boolean)) out.push({ method, path });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

interface Pool {
  channels: Record<string, string>;
  contactId: string;
  messageId: string;
  fileId: string;
  otherToken: string;
}

const VALID_BODIES = (pool: Pool, r: Random): Record<string, () => unknown> => ({
  'POST /v1/channels': () => channelBody(r.pick(CHANNEL_TYPES)),
  'PATCH /v1/channels/:channel_id': () =>
    r.pick([{ name: 'renamed' }, { webhook: { url: 'https://hooks.example.com/x', ssl_verification: 'false' } }, { webhook: null }, { mode: 'test' }]),
  'PATCH /v1/channels/:channel_id/settings': () =>
    r.pick([
      { domains_whitelist: ['https://shop.example.com'] },
      {
        get_started_button: { payload: 'GO' },
        menu: [
          {
            locale: 'default',
            items: [
              { type: 'postback', title: 'A', payload: 'a' },
              { type: 'menu', title: 'M', items: [{ type: 'url', title: 'U', payload: 'https://e.com' }] },
            ],
          },
        ],
      },
      { user_inputs: [{ locale: 'default', enabled: true }] },
    ]),
  'POST /v1/messages': () => ({
    ...r.pick([
      { channel: { id: pool.channels.mobile }, contact: { id: pool.contactId } },
      { channel: { id: pool.channels.mobile }, contact: { phone_number: '+420 601 234 568', first_name: 'A' } },
      { channel: { id: pool.channels.rbm }, contact: { phone_number: '+420601234569' } },
      { channel: { id: pool.channels.appmsg_business_messages }, contact: { phone_number: '+420601234570' } },
      { channel: { id: pool.channels.email }, contact: { email: 'a@example.com', name: 'A' } },
      { channel: { id: pool.channels.socialnet_chat }, contact: { phone_number: '+420601234571' } },
      { channel: { id: pool.channels.socialnet_chat }, contact: { user_ref: 'ref-1' } },
    ]),
    content: {
      ...(r.pick(Object.values(CONTENT_SAMPLES)) as object),
      ...(r.chance(0.3) ? { quick_replies: [{ type: 'text', title: 'Yes', payload: 'Y' }] } : {}),
    },
    ...(r.chance(0.5) ? { metadata: { tag: 'account_update', note: 'n' } } : {}),
  }),
  'POST /v1/notifications': () => ({
    channel: { id: r.pick(Object.values(pool.channels)) },
    contact: { id: pool.contactId },
    type: r.pick(['typing_on', 'typing_off', 'messages_read', 'custom']),
    ...(r.chance(0.5) ? { payload: { a: 1 } } : {}),
  }),
});

function paramValue(r: Random, name: string, pool: Pool): string {
  const own: Record<string, () => string> = {
    channel_id: () => r.pick(Object.values(pool.channels)),
    contact_id: () => pool.contactId,
    message_id: () => pool.messageId,
    file_id: () => pool.fileId,
    type: () => r.pick([...CHANNEL_TYPES, 'no_such_type']),
    endpoint: () => r.pick(['updates', 'status', 'receive', 'x']),
  };
  if (r.chance(0.55) && Object.hasOwn(own, name)) return own[name]!();
  return r.pick([
    '0',
    '-1',
    '1.5',
    '9'.repeat(30),
    '9'.repeat(r.int(100, 6000)),
    '00001',
    'abc',
    '%00',
    '..',
    '.',
    '%2e%2e',
    '%2F',
    'a%2Fb',
    '%ZZ',
    '%',
    '%E0%A4%A',
    '%F0%9F%98%80',
    '%ED%A0%80',
    '%C0%AF',
    enc(hostileString(r).slice(0, 300)),
    r.pick(BUILT_INS),
    String(2 ** 53),
    '1e3',
    ' ',
  ]);
}

/** Path spellings the router may read as the same path, or not. */
function respell(r: Random, path: string): string {
  switch (r.int(0, 11)) {
    case 0:
      return path.replace(/v/, '%76');
    case 1:
      return path.replace(/1/, '%31');
    case 2:
      return path.replace(/\/([^/]+)$/, '/./$1');
    case 3:
      return path.replace(/\/([^/]+)$/, '/x/../$1');
    case 4:
      return path.replace('/', '//');
    case 5:
      return `${path}/`;
    case 6:
      return path.replace('/v1', '/V1');
    case 7:
      return path.replace(/[a-z]/g, (c) => (r.chance(0.2) ? `%${c.charCodeAt(0).toString(16)}` : c));
    default:
      return path;
  }
}

interface Planned {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: string;
  raw?: string;
  label: string;
}

function plan(r: Random, routes: RouteEntry[], pool: Pool, token: string, origin: string): Planned {
  const host = new URL(origin).host;
  const route = r.pick(routes);
  const method = r.chance(0.08) ? r.pick(['PUT', 'OPTIONS', 'PATCH', 'DELETE', 'POST', 'PROPFIND', 'HEAD']) : route.method;
  let path = route.path
    .replace(/:([a-z_]+(?:\|:[a-z_]+)*)/g, (_all, names: string) => paramValue(r, r.pick(names.split('|:')), pool))
    .replace('*', () => paramValue(r, '*', pool));
  if (r.chance(0.35)) path = respell(r, path);
  if (r.chance(0.3)) {
    const query = Array.from(
      { length: r.int(1, 4) },
      () =>
        `${enc(r.pick(['max', 'offset', 'access_token', ...BUILT_INS, 'status', 'hub.mode', 'hub.verify_token', 'hub.challenge']))}=${enc(hostileString(r).slice(0, 200))}`,
    );
    path += `?${query.join('&')}`;
  }
  const headers: Record<string, string | string[]> = {};
  const auth = r.int(0, 9);
  if (auth <= 3) headers.authorization = `Bearer ${token}`;
  else if (auth === 4) path += `${path.includes('?') ? '&' : '?'}access_token=${token}`;
  else if (auth === 5) headers.authorization = `Bearer ${pool.otherToken}`;
  else if (auth === 6)
    headers.authorization = r.pick([
      'Bearer',
      'Basic abc',
      token,
      `Bearer ${token} x`,
      `Bearer ${'t'.repeat(r.int(250, 8000))}`,
      `Bearer prl_${hostileString(r)
        .slice(0, 40)
        .replace(/[^\x21-\x7e]/g, '')}`,
    ]);
  else if (auth === 7) headers.authorization = [`Bearer ${token}`, 'Bearer prl_other'];
  const key = `${route.method} ${route.path}`;
  const valid = VALID_BODIES(pool, r)[key];
  let body: string | undefined;
  if (['POST', 'PATCH', 'PUT', 'DELETE'].includes(method) && (valid || r.chance(0.5))) {
    const roll = r.int(0, 9);
    if (roll < 2 && valid) body = JSON.stringify(valid());
    else if (roll < 6 && valid) body = JSON.stringify(mutate(r, valid()));
    else if (roll < 8) body = JSON.stringify(hostileValue(r)) ?? 'null';
    else body = r.pick(BROKEN_JSON);
    headers['content-type'] = r.chance(0.85)
      ? 'application/json'
      : r.pick([
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          ';;;',
          'application/json, text/plain',
          'multipart/form-data; boundary=x',
          'application/vnd.api+json',
          'APPLICATION/JSON',
        ]);
  }
  if (r.chance(0.05))
    headers['idempotency-key'] = hostileString(r)
      .slice(0, 300)
      .replace(/[^\x20-\x7e]/g, '?');
  if (r.chance(0.03)) headers['x-filler'] = 'f'.repeat(r.int(1000, 20_000));
  const label = `${method} ${path.slice(0, 160)}${path.length > 160 ? '…' : ''} auth=${auth} body=${(body ?? '').slice(0, 80)}`;

  // Requests an HTTP client will not send: absolute-form lines, broken framing, control characters.
  // (Not HEAD: the raw reader would wait for the body its Content-Length announces.)
  if (method !== 'HEAD' && r.chance(0.06)) {
    const line = r.int(0, 5);
    const auth1 = typeof headers.authorization === 'string' ? `Authorization: ${headers.authorization}\r\n` : '';
    const raw = [
      `${method} http://${host}${path.startsWith('/') ? path : `/${path}`} HTTP/1.1\r\nHost: ${host}\r\n${auth1}Connection: close\r\n\r\n`,
      `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nAuthorization: Basic x\r\nConnection: close\r\n\r\n`,
      `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{"a":1}`,
      `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nX-Bad: a\u0001b\r\n\r\n`,
      `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n4\r\n{"a"\r\nZ\r\n`,
      `${method} ${path} HTTP/1.0\r\n\r\n`,
    ][line]!;
    return { method, path, headers, raw, label: `raw#${line} ${label}` };
  }
  return { method, path, headers, ...(body !== undefined ? { body } : {}), label };
}

interface Answer {
  status: number;
  text: string;
  contentType: string;
}

function sendHttp(origin: string, agent: http.Agent, p: Planned): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    let req: http.ClientRequest;
    // Node's client frames a DELETE body only when told its length.
    const headers = p.body === undefined ? p.headers : { ...p.headers, 'content-length': String(Buffer.byteLength(p.body)) };
    try {
      req = http.request({ host: hostname, port, method: p.method, path: p.path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), contentType: String(res.headers['content-type'] ?? '') }),
        );
        res.on('error', reject);
      });
    } catch (error) {
      reject(error);
      return;
    }
    // A dropped connection may be the previous request's doing: its label goes with the error.
    req.on('socket', (socket) => {
      const seen = socket as unknown as { fuzzLast?: string };
      const previous = seen.fuzzLast;
      seen.fuzzLast = p.label;
      req.on('error', (e) => ((e as Error & { previous?: string }).previous = previous));
    });
    req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', reject);
    req.end(p.body);
  });
}

for (const { dialect, skip } of await dialects()) {
  describe(`Fuzz: every route with hostile input (${dialect})`, { skip }, () => {
    let s: TestServer;
    let pool: Pool;
    before(async () => {
      const registry = new ConnectorRegistry();
      let sent = 0;
      // Every type whose channel the pool makes in production mode gets a connector that takes
      // everything: a production channel without one answers 502 by design (nothing to send with).
      for (const type of ['socialnet_chat', 'botmsg', 'appmsg', 'email'] as const) {
        const accepting: Connector = {
          type,
          roles: {
            verifier: { verifyChannel: async () => ({ ok: true, value: { config: {}, secrets: {} } }) },
            sender: { send: async () => ({ ok: true, value: { externalIds: [`fuzz.${++sent}`] } }) },
            settings: { pushSettings: async () => ({ ok: true, value: null }) },
            notifications: { sendNotification: async () => ({ ok: true, value: null }) },
          },
        };
        registry.register(accepting);
      }
      s = await startTestServer(dialect, { connectors: registry });
      const owner = await s.newAccount('enterprise', { hourlyLimit: 10_000_000, concurrency: 1000 });
      const other = await s.newAccount('enterprise', { hourlyLimit: 10_000_000, concurrency: 1000 });
      s.api = owner.api;
      s.token = owner.token;
      const channels: Record<string, string> = {};
      for (const type of CHANNEL_TYPES) {
        const res = await owner.api.post('/v1/channels', {
          ...channelBody(type, ['mobile', 'rbm', 'appmsg_business_messages'].includes(type) ? 'test' : undefined),
        });
        assert.equal(res.status, 201, `${type}: ${res.text}`);
        channels[type] = res.body.id;
      }
      const sentMessage = await owner.api.post('/v1/messages', {
        channel: { id: channels.mobile },
        contact: { phone_number: '+420601234567' },
        content: { type: 'text', payload: 'hello' },
      });
      assert.equal(sentMessage.status, 201, sentMessage.text);
      pool = { channels, contactId: sentMessage.body.contact.id, messageId: sentMessage.body.id, fileId: 'a'.repeat(32), otherToken: other.token };
    });
    after(async () => s?.close());

    test('no 5xx and every error in the specification format, for every route, with and without a token', async (t) => {
      const routes = routesOf(s.runtime.app);
      const paths = new Set(routes.map((r) => r.path));
      for (const required of ['/v1/channels', '/v1/messages', '/v1/notifications', '/v1/files/:file_id/:name', '/healthz'])
        assert.ok(paths.has(required), `route ${required} found`);
      const r = new Random(SEED);
      const agent = new http.Agent({ keepAlive: true, maxSockets: PARALLEL });
      const rssBefore = process.memoryUsage().rss;
      const started = Date.now();
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      let tried = 0;
      let transportErrors = 0;

      const one = async (p: Planned) => {
        let answer: Answer;
        try {
          if (p.raw !== undefined) {
            const res = await rawRequest(s.origin, p.raw, 15_000);
            answer = { status: res.status, text: res.text, contentType: res.headers['content-type'] ?? '' };
          } else {
            answer = await sendHttp(s.origin, agent, p);
          }
        } catch (error) {
          // A request the client refuses to send (invalid characters) is not the server's doing;
          // a connection the server drops without an answer is.
          if (
            error instanceof TypeError ||
            (error as NodeJS.ErrnoException).code === 'ERR_UNESCAPED_CHARACTERS' ||
            (error as NodeJS.ErrnoException).code === 'ERR_INVALID_CHAR'
          )
            return;
          transportErrors++;
          failures.push(`no answer (${String(error)}): ${p.label} (after: ${(error as { previous?: string }).previous ?? 'none'})`);
          return;
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status >= 500) failures.push(`${answer.status} ${answer.text.slice(0, 200)}: ${p.label}`);
        if (answer.status >= 400 && p.method !== 'HEAD') {
          try {
            assertErrorBody(JSON.parse(answer.text), answer.status);
          } catch (error) {
            failures.push(`not the error format (${String(error).slice(0, 120)}): ${answer.text.slice(0, 200)} ${p.label}`);
          }
        }
      };

      const queue: Array<Promise<void>> = [];
      while (tried < MAX_REQUESTS && Date.now() - started < MAX_MS) {
        const p = plan(r, routes, pool, s.token, s.origin);
        tried++;
        queue.push(one(p));
        if (queue.length >= PARALLEL) await Promise.all(queue.splice(0));
      }
      await Promise.all(queue);
      agent.destroy();
      const rssAfter = process.memoryUsage().rss;
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
      t.diagnostic(
        `seed ${SEED}: ${tried} requests over ${routes.length} route methods in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}; RSS ${mb(rssBefore)} -> ${mb(rssAfter)}`,
      );
      assert.equal(transportErrors, 0, failures.slice(0, 5).join('\n'));
      assert.deepEqual(failures.slice(0, 15), [], `${failures.length} failures (seed ${SEED})`);
      // The server still works.
      assert.equal((await s.api.get('/v1/channels')).status, 200);
    });
  });
}
