import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../helpers/databases.js';
import { accountWithToken, baseEnv, startServerProcess, type ListeningServer } from '../helpers/processes.js';
import { freePort } from '../helpers/runtime.js';
import { selfSignedCert, type SelfSignedCert } from '../helpers/certs.js';
import { EventLog } from '../helpers/event-log.js';
import { eventually } from '../helpers/waits.js';

// The shipped nginx configuration (deploy/nginx/parley.conf), run by Debian's nginx in front of
// two API processes on one PostgreSQL database. Only the lines an operator edits are replaced
// (the instances' addresses, the listening ports, the certificate); everything else runs as shipped.

const SHIPPED = 'deploy/nginx/parley.conf';
const PAGE = 'https://shop.example.com';

function findNginx(): string | null {
  for (const candidate of ['nginx', '/usr/sbin/nginx']) {
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return null;
}

const NGINX = findNginx();
const pgOk = await postgresAvailable();
if (process.env.CI === 'true' && !NGINX) throw new Error('nginx is required in CI (.ci/run installs it from Debian)');
if (process.env.CI === 'true' && !pgOk) throw new Error('PostgreSQL is required in CI');
const skip = !NGINX ? 'nginx is not installed: apt-get install nginx-light (Debian) to run the reverse proxy test' : !pgOk ? 'PostgreSQL not reachable' : false;

/** Replaces every occurrence of `from`, which must occur exactly `times` times in the shipped file. */
function replaceExactly(text: string, from: string, to: string, times: number): string {
  const parts = text.split(from);
  assert.equal(parts.length - 1, times, `${SHIPPED} has ${times}× "${from}"`);
  return parts.join(to);
}

/** The shipped configuration with the test's ports and certificate. */
function templated(ports: { api: [number, number]; http: number; https: number }, cert: SelfSignedCert): string {
  let conf = readFileSync(SHIPPED, 'utf8');
  conf = replaceExactly(conf, 'server 10.0.0.11:8080', `server 127.0.0.1:${ports.api[0]}`, 2);
  conf = replaceExactly(conf, 'server 10.0.0.12:8080', `server 127.0.0.1:${ports.api[1]}`, 2);
  conf = replaceExactly(conf, 'listen 80;', `listen 127.0.0.1:${ports.http};`, 1);
  conf = replaceExactly(conf, 'listen 443 ssl;', `listen 127.0.0.1:${ports.https} ssl;`, 1);
  // Loopback IPv4 only: the test machine may have no IPv6.
  conf = replaceExactly(conf, 'listen [::]:80;', '', 1);
  conf = replaceExactly(conf, 'listen [::]:443 ssl;', '', 1);
  conf = replaceExactly(conf, '/etc/ssl/parley/fullchain.pem', cert.certFile, 1);
  conf = replaceExactly(conf, '/etc/ssl/parley/privkey.pem', cert.keyFile, 1);
  return conf;
}

/** A main configuration around the site file, with every path nginx writes inside `dir`. */
function mainConf(dir: string, site: string): string {
  // Temp paths of the modules this build has (nginx-light lacks some); the defaults are under /var/lib.
  const built = spawnSync(NGINX!, ['-V'], { encoding: 'utf8' }).stderr;
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].filter((m) => m === 'client_body' || built.includes(`--http-${m}-temp-path`));
  return [
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    'error_log stderr warn;',
    'events { worker_connections 256; }',
    'http {',
    '  access_log off;',
    ...temps.map((m) => `  ${m}_temp_path ${join(dir, m)};`),
    `  include ${site};`,
    '}',
    '',
  ].join('\n');
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

describe('Parley behind the shipped nginx configuration (postgres)', { skip }, () => {
  let db: TestDatabase;
  let servers: ListeningServer[] = [];
  let nginx: ChildProcess | undefined;
  let nginxOutput = '';
  let dir: string;
  let cert: SelfSignedCert;
  let origin: string;
  let httpPort: number;
  let publicUrl: string;
  let token: string;
  let channelId: string;
  let serverEnv: Record<string, string>;
  let apiPorts: number[];
  const sockets: Socket[] = [];

  /** An HTTPS request through nginx from a loopback address of the test's choosing. */
  function call(
    method: string,
    path: string,
    options: { body?: unknown; from?: string; headers?: Record<string, string>; token?: string | null } = {},
  ): Promise<Answer> {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${origin}${path}`,
        {
          method,
          ca: cert.cert,
          localAddress: options.from ?? '127.0.0.1',
          agent: false,
          headers: {
            ...(options.token === null ? {} : { authorization: `Bearer ${options.token ?? token}` }),
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
            ...options.headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => {
            let body: any = undefined;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              body = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** A web chat visitor connecting through nginx from `from` (a loopback address) over the given transports. */
  function visitor(from: string, transports: Array<'websocket' | 'polling'>, options: { sessionId?: string; headers?: Record<string, string> } = {}) {
    const log = new EventLog<{ event: string; data: any }>();
    const query: Record<string, string> = { v: '1', channel_id: channelId };
    if (options.sessionId) query.session_id = options.sessionId;
    const socket = io(origin, {
      query,
      transports,
      reconnection: false,
      forceNew: true,
      extraHeaders: { origin: PAGE, ...options.headers },
      ca: cert.cert.toString('utf8'),
      localAddress: from,
      agent: new Agent({ ca: cert.cert, localAddress: from, keepAlive: true }) as unknown as string,
    } as Parameters<typeof io>[1]);
    sockets.push(socket);
    for (const name of ['connection_accepted', 'connection_rejected', 'message_server', 'connect_error', 'disconnect']) {
      socket.on(name, (data: any) => log.push({ event: name, data }));
    }
    return {
      socket,
      log,
      first: (names: string[]) => log.waitFor((e) => names.includes(e.event), { what: names.join(' or '), timeoutMs: 10_000 }),
      request: (event: string, data: unknown) =>
        new Promise<any>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no acknowledgement of ${event}`)), 10_000);
          socket.emit(event, data, (ack: any) => {
            clearTimeout(timer);
            resolve(ack);
          });
        }),
    };
  }

  const contactIds = async (): Promise<string[]> => {
    const res = await call('GET', `/v1/channels/${channelId}/contacts?max=100`);
    assert.equal(res.status, 200, res.text);
    return (res.body as Array<{ id: string }>).map((c) => c.id);
  };

  /** The visitor's contact: the one contact that appeared since `known`. */
  const newContact = async (known: string[]): Promise<string> => {
    const added = (await contactIds()).filter((id) => !known.includes(id));
    assert.equal(added.length, 1, `one new contact: ${added.join(', ')}`);
    return added[0]!;
  };

  /** The instance number an id was made by (src/lib/ids.ts). */
  const instanceOf = (id: string) => Math.floor(Number(id) / 256) % 16;

  before(async () => {
    db = await createTestDatabase('postgres');
    const [apiA, apiB, http, https] = [await freePort(), await freePort(), await freePort(), await freePort()];
    cert = selfSignedCert();
    httpPort = http!;
    origin = `https://127.0.0.1:${https}`;
    publicUrl = `${origin}/v1`;
    const env = baseEnv(db, {
      ROLE: 'api',
      LOG_LEVEL: 'warn',
      PUBLIC_URL: publicUrl,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      // nginx connects to the instances from 127.0.0.1; the test's clients come from other loopback addresses.
      TRUSTED_PROXIES: '127.0.0.1',
      CHAT_TRUSTED_PROXIES: '127.0.0.1',
      CHAT_CONNECTIONS_PER_ADDRESS: '1',
      // As docs/deploy.md sets it for instances behind the proxy: a restart ends nginx's kept-alive connections by answers.
      SHUTDOWN_DRAIN_SECONDS: '2',
    });
    serverEnv = env;
    apiPorts = [apiA!, apiB!];
    token = (await accountWithToken(env)).token;
    servers = await Promise.all([startServerProcess(env, apiA!), startServerProcess(env, apiB!)]);

    dir = mkdtempSync(join(tmpdir(), 'parley-nginx-'));
    // nginx's workers run as an unprivileged user when the test runs as root: they need to reach the temp paths.
    chmodSync(dir, 0o755);
    const site = join(dir, 'parley.conf');
    writeFileSync(site, templated({ api: [apiA!, apiB!], http: http!, https: https! }, cert));
    writeFileSync(join(dir, 'nginx.conf'), mainConf(dir, site));
    const child = spawn(NGINX!, ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx = child;
    child.stdout.on('data', (d) => (nginxOutput += String(d)));
    child.stderr.on('data', (d) => (nginxOutput += String(d)));
    await eventually(
      async () => {
        if (child.exitCode !== null) assert.fail(`nginx exited (${child.exitCode}):\n${nginxOutput}`);
        return (await call('GET', '/readyz').catch(() => null))?.status === 200 ? true : undefined;
      },
      15_000,
      'nginx answering /readyz',
    );

    const made = await call('POST', '/v1/channels', { body: { type: 'service_chat', name: 'Web chat' } });
    assert.equal(made.status, 201, made.text);
    channelId = made.body.id;
    const set = await call('PATCH', `/v1/channels/${channelId}/settings`, { body: { domains_whitelist: [PAGE] } });
    assert.equal(set.status, 200, set.text);
  });

  after(async () => {
    for (const s of sockets) s.close();
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx!.once('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('plain HTTP is sent to HTTPS; Send Message over HTTPS answers 201 with a Location on PUBLIC_URL', async () => {
    const known = await contactIds();
    const chat = visitor('127.0.0.2', ['websocket']);
    assert.equal((await chat.first(['connection_accepted', 'connection_rejected', 'connect_error'])).event, 'connection_accepted');
    const contactId = await newContact(known);

    const sent = await call('POST', '/v1/messages', {
      body: { channel: { id: channelId }, contact: { id: contactId }, content: { type: 'text', payload: 'Hello through the proxy' } },
    });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.headers.location, `${publicUrl}/messages/${sent.body.id}`);
    const got = await call('GET', new URL(String(sent.headers.location)).pathname);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.id, sent.body.id);
    assert.equal((await chat.first(['message_server'])).data.content.payload, 'Hello through the proxy');

    const plain = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      httpGet(`http://127.0.0.1:${httpPort}/v1/messages`, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
      }).on('error', reject);
    });
    assert.equal(plain.status, 301);
    assert.match(plain.location ?? '', /^https:\/\/127\.0\.0\.1\/v1\/messages$/);
  });

  for (const transport of ['websocket', 'polling'] as const) {
    test(`a web chat session over ${transport} only, through nginx, in both directions`, async () => {
      const known = await contactIds();
      const chat = visitor(transport === 'websocket' ? '127.0.0.3' : '127.0.0.4', [transport]);
      const hello = await chat.first(['connection_accepted', 'connection_rejected', 'connect_error']);
      assert.equal(hello.event, 'connection_accepted', JSON.stringify(hello.data));
      const contactId = await newContact(known);
      // Several round trips: over long-polling each is a request of its own, and all of them
      // must reach the instance that holds the connection.
      for (let i = 0; i < 6; i++) {
        const ack = await chat.request('message_client', { content: { type: 'text', payload: `visitor ${i}` } });
        assert.equal(ack.direction, 'sent', JSON.stringify(ack));
        assert.equal(ack.content.payload, `visitor ${i}`);
      }
      const sent = await call('POST', '/v1/messages', {
        body: { channel: { id: channelId }, contact: { id: contactId }, content: { type: 'text', payload: `answer over ${transport}` } },
      });
      assert.equal(sent.status, 201, sent.text);
      assert.equal((await chat.first(['message_server'])).data.content.payload, `answer over ${transport}`);
      assert.equal(chat.socket.io.engine.transport.name, transport);
      chat.socket.close();
    });
  }

  test("the service sees the client's own address, not nginx's and not one the client claims", async () => {
    // The administration sign-in throttle counts failures per client address (TRUSTED_PROXIES).
    const email = `nobody-${randomBytes(4).toString('hex')}@example.com`;
    const failed = await call('POST', '/admin/api/session', {
      from: '127.0.0.7',
      token: null,
      headers: { 'x-forwarded-for': '198.51.100.7' },
      body: { email, password: 'not the password' },
    });
    assert.equal(failed.status, 401, failed.text);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ key: string }>('select key from admin_sign_in_failures where key like $1', ['addr:%']);
      assert.deepEqual(
        rows.map((r) => r.key),
        ['addr:127.0.0.7'],
      );
    } finally {
      await client.end();
    }

    // The web chat counts connections per client address and instance (CHAT_TRUSTED_PROXIES),
    // here at most one. A second connection from the same address is refused whatever it claims.
    const known = await contactIds();
    const first = visitor('127.0.0.5', ['websocket']);
    assert.equal((await first.first(['connection_accepted', 'connection_rejected'])).event, 'connection_accepted');
    const instance = instanceOf(await newContact(known));
    const again = visitor('127.0.0.5', ['websocket'], { headers: { 'x-forwarded-for': '198.51.100.8' } });
    const refused = await again.first(['connection_accepted', 'connection_rejected']);
    assert.equal(refused.event, 'connection_rejected');
    assert.equal(refused.data.error_code, 4);
    // Another client on the same instance is let in: the count is not nginx's own address.
    let sameInstance = false;
    for (let last = 20; last < 60 && !sameInstance; last++) {
      const before = await contactIds();
      const other = visitor(`127.0.0.${last}`, ['websocket']);
      const answer = await other.first(['connection_accepted', 'connection_rejected']);
      assert.equal(answer.event, 'connection_accepted', `127.0.0.${last}: ${JSON.stringify(answer.data)}`);
      sameInstance = instanceOf(await newContact(before)) === instance;
      other.socket.close();
    }
    assert.ok(sameInstance, 'a client of another address reached the same instance');
  });

  test('a rolling restart of one instance under Send Message load: every request through nginx answers 201', async () => {
    const made = await call('POST', '/v1/channels', {
      body: {
        type: 'mobile',
        name: 'SMS',
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: 'Parley', access_token: 'unused', signing_key: 'unused' },
      },
    });
    assert.equal(made.status, 201, made.text);
    const statuses = new Map<string, number>();
    const failures: string[] = [];
    let stop = false;
    let sent = 0;
    const loop = async () => {
      while (!stop) {
        const i = sent++;
        const answer = await call('POST', '/v1/messages', {
          body: {
            channel: { id: made.body.id },
            contact: { phone_number: `+42060177${String(i % 100).padStart(4, '0')}` },
            content: { type: 'text', payload: `m${i}` },
          },
        }).catch((error: NodeJS.ErrnoException) => ({ status: error.code ?? 'error', text: String(error) }));
        const key = String(answer.status);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (key !== '201' && failures.length < 5) failures.push(`${key}: ${answer.text}`);
      }
    };
    const loops = Array.from({ length: 6 }, loop);
    try {
      await sleep(1_000);
      // SIGTERM: the instance drains (answers, not ready, kept alive), refuses new connections while each answer closes its own, then closes; nginx sends the rest to the other.
      assert.equal(await servers[0]!.stop(), 0);
      servers[0] = await startServerProcess(serverEnv, apiPorts[0]!);
      await sleep(1_000);
    } finally {
      stop = true;
      await Promise.all(loops);
    }
    assert.deepEqual(
      [...statuses.keys()],
      ['201'],
      `every answer 201: ${JSON.stringify(Object.fromEntries(statuses))}\n${failures.join('\n')}\n${nginxOutput}`,
    );
    assert.ok(statuses.get('201')! > 50, `a load of some size (${statuses.get('201')})`);
  });
});
