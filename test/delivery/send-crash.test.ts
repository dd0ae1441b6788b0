import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { freePort } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';
import { openStore } from '../../src/store/open.js';
import { accountWithToken, baseEnv, spawnServer, waitUntilReady, type ServerProcess } from '../helpers/processes.js';
import { eventually } from '../helpers/waits.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';

const ACCESS_KEY = 'live_sendcrashtestkey000000001';
const SIGNING_KEY = 'provider-signing-key-of-the-crash-test';

/**
 * Between the service and the stand-in: passes every call through, but while `holding`, the
 * answers to sends are kept from the service (the provider has taken the message; the service
 * does not know). `held` wakes waiters as answers are held.
 */
class HoldingProxy {
  holding = false;
  readonly held: ServerResponse[] = [];
  private waiters = new Set<() => void>();
  private server!: Server;
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.pass(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private async pass(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
    const answer = await fetch(`${this.target}${req.url}`, { method: req.method, headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) });
    const body = Buffer.from(await answer.arrayBuffer());
    if (this.holding && req.method === 'POST' && req.url === '/messages') {
      this.held.push(res);
      for (const w of [...this.waiters]) w();
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(body);
  }

  waitForHeld(n: number, timeoutMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fewer than ${n} sends held within ${timeoutMs} ms`)), timeoutMs);
      const look = () => {
        if (this.held.length < n) return;
        clearTimeout(timer);
        this.waiters.delete(look);
        resolve();
      };
      this.waiters.add(look);
      look();
    });
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

for (const { dialect, skip } of await dialects()) {
  describe(`Never sent twice: SIGKILL of a worker with sends the provider took and the service did not record (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let sms: ReturnType<typeof createSmsproviderStandIn>;
    let proxy: HoldingProxy;
    let smsBase: string;
    const servers: ServerProcess[] = [];
    before(async () => {
      db = await createTestDatabase(dialect);
      sms = createSmsproviderStandIn({ accessKey: ACCESS_KEY, signingKey: SIGNING_KEY });
      smsBase = await sms.listen(0);
      proxy = await new HoldingProxy(smsBase).start();
    });
    after(async () => {
      for (const s of servers) await s.kill('SIGKILL');
      await proxy?.close();
      await sms?.close();
      await db?.drop();
    });

    test('every accepted message reaches the provider exactly once and ends sent', { timeout: 120_000 }, async () => {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const env = baseEnv(db, {
        PORT: String(port),
        PUBLIC_URL: `${origin}/v1`,
        ROLE: 'all',
        LOG_LEVEL: 'warn',
        WORKER_POLL_MS: '50',
        SMSPROVIDER_API_URL: proxy.url,
        PLATFORM_TIMEOUT_MS: '60000',
      });
      const { token } = await accountWithToken(env);
      const api = new ApiClient(origin, token);
      const first = spawnServer(env);
      servers.push(first);
      await waitUntilReady(origin, first);
      const created = await api.post('/v1/channels', {
        type: 'mobile',
        name: 'crash',
        provider: { type: 'smsprovider', sender_id: 'Parley', access_token: ACCESS_KEY, signing_key: SIGNING_KEY },
      });
      assert.equal(created.status, 201, created.text);
      const channelId: string = created.body.id;

      // Sends are taken by the provider, their answers held: the worker waits on them when it dies.
      proxy.holding = true;
      const accepted: string[] = [];
      for (let i = 0; i < 24; i++) {
        const res = await api.post('/v1/messages', {
          channel: { id: channelId },
          contact: { phone_number: `+4206017${String(i).padStart(5, '0')}` },
          content: { type: 'text', payload: `message ${i}` },
        });
        assert.equal(res.status, 201, res.text);
        accepted.push(res.body.id);
      }
      await proxy.waitForHeld(8);
      await first.kill('SIGKILL');
      assert.equal((await first.exited).signal, 'SIGKILL');
      const heldAtKill = proxy.held.length;
      proxy.holding = false;

      const second = spawnServer(env);
      servers.push(second);
      await waitUntilReady(origin, second);
      const probe = await openStore(db.url);
      try {
        const rows = await eventually(
          async () => {
            const r = await probe.db.selectFrom('messages').select(['id', 'status', 'external_id']).where('channel_id', '=', Number(channelId)).execute();
            return r.length === accepted.length && r.every((m) => m.status === 'sent' || m.status === 'failed') ? r : undefined;
          },
          60_000,
          'every message sent or failed',
        );
        assert.deepEqual([...new Set(rows.map((r) => r.status))], ['sent']);
        const listed = (await (await fetch(`${smsBase}/_sandbox/messages`)).json()) as { messages: any[] };
        const atProvider = listed.messages.filter((m) => !m.test).map((m) => ({ id: String(m.id), reference: m.reference ?? m.params?.reference }));
        const byReference = new Map<string, number>();
        for (const m of atProvider) byReference.set(String(m.reference), (byReference.get(String(m.reference)) ?? 0) + 1);
        assert.deepEqual(
          accepted.filter((id) => byReference.get(id) !== 1),
          [],
          'each message exactly once at the provider',
        );
        assert.equal(atProvider.length, accepted.length, 'nothing else was sent');
        // The messages whose answers the kill cut off were recorded with the provider's id, found by reference.
        const idsAtProvider = new Map(atProvider.map((m) => [String(m.reference), m.id]));
        for (const row of rows) assert.equal(row.external_id, idsAtProvider.get(String(row.id)));
        // A job's outcome is written in the runner's next batch, just after its message is marked sent.
        const jobs = await eventually(
          async () => {
            const r = await probe.db.selectFrom('jobs').select(['status', 'attempts']).where('channel_id', '=', Number(channelId)).execute();
            return r.every((j) => j.status !== 'running' && j.status !== 'pending') ? r : undefined;
          },
          10_000,
          'every send job ended',
        );
        assert.deepEqual([...new Set(jobs.map((j) => j.status))], ['done']);
        const retried = jobs.filter((j) => Number(j.attempts) > 1).length;
        assert.ok(retried >= heldAtKill, `the sends cut off ran again (${retried} retried, ${heldAtKill} held at the kill)`);
        process.stderr.write(
          `# ${dialect}: ${accepted.length} accepted, ${heldAtKill} sends taken by the provider and unanswered at the kill, ${retried} jobs ran again\n`,
        );
      } finally {
        await probe.close();
      }
    });
  });
}
