import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../helpers/databases.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { cli } from '../helpers/processes.js';
import { Receiver } from '../helpers/receiver.js';
import { openChat, type TestChatClient } from '../chat/helpers/chat-clients.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import { createNluserverStandIn } from '../../sandbox/nluserver/server.js';
import { createSocialnetChatStandIn } from '../../sandbox/socialnet_chat/server.js';
import { member, memberUrl, type Member } from './cluster.js';

// Scale-out under load and faults (PostgreSQL): two API and two worker processes on one fresh
// database, the stand-ins as the platforms, and a mixed load for SCALEOUT_DURATION_S seconds
// (60 unless set; `npm run scaleout -- --duration 600` runs longer). During it one API process
// and one worker are SIGKILLed and started again, and the database sessions of the other worker,
// then of the other API process, are ended by the server. Then every exactness check below must hold.

const DURATION_MS = Number(process.env.SCALEOUT_DURATION_S ?? 60) * 1000;
const QUOTA_LIMIT = 150;
/** Requests of the capped account: a quarter more than its limit lets through. */
const QUOTA_REQUESTS = 190;
const PAGE = 'https://shop.example.com';
const SMS_KEY = 'live_scaleoutkey0000000000000';
const SMS_SIGNING_KEY = 'scaleout-signing-key';
const NLU_TOKEN = 'scaleout-nlu-token';
const SN_APP = { appId: '123456789012345', appSecret: 'scaleout-app-secret' };
const SN_VERIFY_TOKEN = 'scaleout-verify-token';
/** Users of the socialnet_chat page, each of whom wrote first (so the page may answer). */
const SN_USERS = 6;
const NUMBERS = ['+420601000001', '+420601000002'];
const PHONES = Array.from({ length: 16 }, (_, i) => `+4207770000${String(i).padStart(2, '0')}`);

const pgOk = await postgresAvailable();
if (!pgOk && process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');

/** A receiver refuses about one event in ten at its first call (by its id): the worker must try again. */
function refusesFirst(eventId: string): boolean {
  return createHash('sha1').update(eventId).digest()[0]! < 26;
}

describe('Scale-out: two API and two worker processes on one PostgreSQL under load and faults', { skip: pgOk ? false : 'PostgreSQL not reachable' }, () => {
  let db: TestDatabase;
  let receiver: Receiver;
  const sms = createSmsproviderStandIn({ accessKey: SMS_KEY, signingKey: SMS_SIGNING_KEY });
  const nlu = createNluserverStandIn({
    token: NLU_TOKEN,
    model: {
      intents: [
        { name: 'order', examples: ['i want a pizza', 'one pizza please'] },
        { name: 'greet', examples: ['hello', 'hi there'] },
      ],
    },
  });
  const sn = createSocialnetChatStandIn(SN_APP);
  let smsBase = '';
  let nluBase = '';
  let snBase = '';
  const members: Member[] = [];
  const chats: TestChatClient[] = [];
  /** Event id -> how many calls with it the receiver answered 2xx. */
  const answeredOk = new Map<string, number>();

  before(async () => {
    db = await createTestDatabase('postgres');
    receiver = await Receiver.start();
    const seen = new Set<string>();
    receiver.answer = (call) => {
      const id = String(call.headers['x-parley-event-id']);
      const first = !seen.has(id);
      seen.add(id);
      if (first && refusesFirst(id)) return { status: 500, body: 'try again' };
      answeredOk.set(id, (answeredOk.get(id) ?? 0) + 1);
      return { status: 200, body: 'ok' };
    };
    smsBase = await sms.listen(0);
    nluBase = await nlu.listen(0);
    snBase = await sn.listen(0);
    await cli(['migrate'], { DATABASE_URL: db.url, DATA_DIR: db.dataDir, PATH: process.env.PATH ?? '' });
  });
  after(async () => {
    for (const c of chats) c.close();
    await Promise.allSettled(members.map((m) => m.process?.kill('SIGKILL')));
    await Promise.allSettled([sms.close(), nlu.close(), sn.close(), receiver?.close()]);
    await db?.drop();
  });

  test(
    `a mixed load of ${DURATION_MS / 1000} s with a killed API process, a killed worker and cut database sessions`,
    { timeout: DURATION_MS + 300_000 },
    async () => {
      const env: Record<string, string> = {
        LOG_LEVEL: 'warn',
        AUTH_CACHE_MS: '0',
        WORKER_POLL_MS: '250',
        WEBHOOK_RETRY_SCHEDULE: '1,2,3,5,8,13',
        WEBHOOK_RETRY_JITTER: '0',
        WEBHOOK_TIMEOUT_MS: '5000',
        SMSPROVIDER_API_URL: smsBase,
        NLP_ALLOWLIST: '127.0.0.1',
        // What is checked is that NLP results are stored, not how fast: on a busy machine the
        // default budget (500 ms) lets some messages go without one.
        NLP_TIME_BUDGET_MS: '10000',
        // The quota window (aligned to the epoch) is a year long, so the capped load never
        // straddles the start of a new one (an hour's boundary let one more through).
        RATE_LIMIT_WINDOW_SECONDS: String(365 * 86_400),
        PLATFORM_TIMEOUT_MS: '5000',
        SOCIALNET_API_URL: snBase,
        SOCIALNET_APP_ID: SN_APP.appId,
        SOCIALNET_APP_SECRET: SN_APP.appSecret,
        SOCIALNET_VERIFY_TOKEN: SN_VERIFY_TOKEN,
      };
      const options = { db, env, publicApi: () => `${apiB.origin}/v1` };
      const apiA = await member('api-a', 'api', options);
      const apiB = await member('api-b', 'api', options);
      const worker1 = await member('worker-1', 'worker', options);
      const worker2 = await member('worker-2', 'worker', options);
      members.push(apiA, apiB, worker1, worker2);
      const t0 = Date.now();
      const progress = (what: string) => console.error(`scale-out ${((Date.now() - t0) / 1000).toFixed(1)} s: ${what}`);
      await Promise.all(members.map((m) => m.start()));
      progress('four processes ready');

      // The accounts: one with room for the whole load, one whose hourly quota the load exceeds.
      const cliEnv = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, PATH: process.env.PATH ?? '' };
      const main = await cli(['account', 'create', '--name', 'load', '--plan', 'enterprise', '--hourly-limit', '1000000', '--concurrency', '1000'], cliEnv);
      const mainToken = (await cli(['token', 'create', '--account', main.id], cliEnv)).access_token as string;
      const capped = await cli(
        ['account', 'create', '--name', 'capped', '--plan', 'enterprise', '--hourly-limit', String(QUOTA_LIMIT), '--concurrency', '1000'],
        cliEnv,
      );
      const cappedToken = (await cli(['token', 'create', '--account', capped.id], cliEnv)).access_token as string;
      const onA = new ApiClient(apiA.origin, mainToken);
      const onB = new ApiClient(apiB.origin, mainToken);
      /** Either API process that is up, alternating. */
      let turn = 0;
      const anyApi = () => (apiA.up && turn++ % 2 === 0 ? onA : onB);

      // Channels: two production SMS channels (asynchronous sends through the workers; NLP on the
      // first; inbound SMS posted to API A for one and to API B for the other) and a web chat.
      const smsChannels: Array<{ id: string; number: string; nlp: boolean }> = [];
      for (const [i, number] of NUMBERS.entries()) {
        const made = await onB.post('/v1/channels', {
          type: 'mobile',
          name: `sms${i}`,
          webhook: { url: receiver.url(`/hook/sms${i}`) },
          provider: { type: 'smsprovider', sender_id: number, access_token: SMS_KEY, signing_key: SMS_SIGNING_KEY },
        });
        assert.equal(made.status, 201, made.text);
        const receiveUrl = (made.body.provider.receive_webhook_url as string).replace(apiB.origin, (i === 0 ? apiA : apiB).origin);
        assert.equal((await fetchJson(`${smsBase}/_sandbox/numbers/${encodeURIComponent(number)}`, 'PUT', { receive_url: receiveUrl })).status, 200);
        if (i === 0) {
          const put = await onB.request('PUT', `/v1/channels/${made.body.id}/nlp`, { kind: 'external', url: nluBase, auth_token: NLU_TOKEN });
          assert.equal(put.status, 201, put.text);
        }
        smsChannels.push({ id: made.body.id, number, nlp: i === 0 });
      }
      const chat = await onB.post('/v1/channels', { type: 'service_chat', name: 'chat', webhook: { url: receiver.url('/hook/chat') } });
      assert.equal(chat.status, 201, chat.text);
      assert.equal((await onB.patch(`/v1/channels/${chat.body.id}/settings`, { domains_whitelist: [PAGE] })).status, 200);
      // A socialnet_chat page (synchronous: Send Message calls the platform inside the request),
      // its users writing first through the platform's webhook to API B.
      const page = await fetchJson(`${snBase}/_sandbox/pages`, 'POST', { name: 'Shop', category: 'Shopping' });
      assert.equal(page.status, 201, page.text);
      const pageId = page.body.page.id as string;
      const snChannel = await onB.post('/v1/channels', {
        type: 'socialnet_chat',
        name: 'page',
        webhook: { url: receiver.url('/hook/sn') },
        socialnet_page: { id: pageId, access_token: page.body.admin.user_access_token },
      });
      assert.equal(snChannel.status, 201, snChannel.text);
      const snContacts: string[] = [];
      for (let i = 0; i < SN_USERS; i++) {
        const user = await fetchJson(`${snBase}/_sandbox/pages/${pageId}/users`, 'POST', { first_name: 'User', last_name: `No${i}` });
        assert.equal(user.status, 201, user.text);
        const text = `hello from user ${i}`;
        const said = await fetchJson(`${snBase}/_sandbox/pages/${pageId}/users/${user.body.user.psid}/messages`, 'POST', { text });
        assert.equal(said.body.webhook?.status, 200, said.text);
        await waitUntil(
          async () => receiver.calls.some((c) => c.body?.event === 'message_received' && c.body.data?.content?.payload === text),
          30_000,
          `the message of socialnet user ${i} reached its receiver`,
        );
        const call = receiver.calls.find((c) => c.body?.event === 'message_received' && c.body.data?.content?.payload === text)!;
        snContacts.push(String(call.body.data.contact.id));
      }
      const cappedApi = [new ApiClient(apiA.origin, cappedToken), new ApiClient(apiB.origin, cappedToken)] as const;
      const cappedChannel = await cappedApi[1].post('/v1/channels', {
        type: 'mobile',
        name: 'capped',
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: 'Shop', access_token: SMS_KEY, signing_key: SMS_SIGNING_KEY },
      });
      assert.equal(cappedChannel.status, 201, cappedChannel.text);

      // Web chat sessions: two on each API process; each is answered through the other one.
      interface Session {
        id: string;
        contactId: string;
        home: Member;
        client: TestChatClient;
        /** Its browser's connections, the one before a restart of its API process too. */
        clients: TestChatClient[];
        connected: boolean;
        /** Messages sent to it (201) while it was connected. */
        expected: string[];
        /** Message ids its browser read with list_messages after the server closed its connection. */
        caughtUp: Set<string>;
      }
      /** Connected, and its connection not closed by the server. */
      const live = (session: Session) => session.connected && !session.client.events.some((e) => e.event === 'disconnect');
      const sessions: Session[] = [];
      for (const home of [apiA, apiB, apiA, apiB]) {
        const { client, sessionId } = await openChat(home.origin, { channelId: chat.body.id, origin: PAGE });
        chats.push(client);
        const first = await client.request('message_client', { content: { type: 'text', payload: 'hello' } });
        const contactId = (await onB.get(`/v1/messages/${first.id}`)).body.contact.id as string;
        sessions.push({ id: sessionId, contactId, home, client, clients: [client], connected: true, expected: [], caughtUp: new Set() });
      }

      const accepted = new Map<string, string>(); // message id -> what sent it
      const smsSent = new Set<string>();
      /** socialnet_chat messages acknowledged with 201: id -> its text (unique). */
      const snSent = new Map<string, string>();
      const inboundOk: Array<{ channel: string; providerId: string }> = [];
      const quota = { accepted: 0, refused: 0, other: [] as string[] };
      const failures: string[] = [];
      const record = <T extends ApiResponse | null>(what: string, res: T): T => {
        if (res?.status === 201) accepted.set(String(res.body.id), what);
        return res;
      };
      const attempt = async (call: () => Promise<ApiResponse>): Promise<ApiResponse | null> => {
        try {
          return await call();
        } catch {
          return null; // the process was killed under it: not acknowledged
        }
      };

      progress('channels and chat sessions ready, load starts');
      const endAt = Date.now() + DURATION_MS;
      // The load goes on until its time is up and every fault has happened (a restart may take long).
      let faultsDone = false;
      const running = () => Date.now() < endAt || !faultsDone;
      const loop = async (everyMs: number, tick: () => Promise<void>, more: () => boolean = running) => {
        while (more()) {
          const started = Date.now();
          try {
            await tick();
          } catch (error) {
            failures.push(String(error));
          }
          await sleep(Math.max(0, everyMs - (Date.now() - started)));
        }
      };

      let n = 0;
      const smsLoad = loop(120, async () => {
        const channel = smsChannels[n % 2]!;
        const text = n % 5 === 0 ? `Your order ${n} is ready: ${'ž'.repeat(80)}` : `Order ${n} is ready`;
        const res = record(
          'sms',
          await attempt(() =>
            anyApi().post('/v1/messages', {
              channel: { id: channel.id },
              contact: { phone_number: PHONES[n++ % PHONES.length]! },
              content: { type: 'text', payload: text },
            }),
          ),
        );
        if (res?.status === 201) smsSent.add(String(res.body.id));
        else if (res && res.status !== 503) failures.push(`sms send: ${res.status} ${res.text}`);
      });

      let p = 0;
      const snLoad = loop(150, async () => {
        const text = `Page answer ${p}`;
        const contactId = snContacts[p++ % snContacts.length]!;
        const res = record(
          'socialnet',
          await attempt(() =>
            anyApi().post('/v1/messages', { channel: { id: snChannel.body.id }, contact: { id: contactId }, content: { type: 'text', payload: text } }),
          ),
        );
        if (res?.status === 201) snSent.set(String(res.body.id), text);
        else if (res && res.status !== 503) failures.push(`socialnet send: ${res.status} ${res.text}`);
      });

      let m = 0;
      const inboundLoad = loop(300, async () => {
        const channel = smsChannels[m % 2]!;
        const res = await fetchJson(`${smsBase}/_sandbox/inbound`, 'POST', {
          originator: PHONES[m++ % PHONES.length],
          recipient: channel.number,
          body: m % 2 ? 'i want a pizza' : 'hello',
        });
        const first = res.body.webhook as { delivery_id: number; status: number | null };
        // The provider tries again until the service answers (API A may be down just then).
        let status = first.status;
        for (let i = 0; i < 60 && status !== 200; i++) {
          await sleep(500);
          const again = await fetchJson(`${smsBase}/_sandbox/webhooks/${first.delivery_id}/redeliver`, 'POST', {});
          status = again.body?.webhook?.status ?? null;
        }
        if (status !== 200) failures.push(`inbound SMS never accepted: ${JSON.stringify(first)}`);
        else inboundOk.push({ channel: channel.id, providerId: String(res.body.fields.id) });
      });

      const reported = new Set<string>();
      const reportLoad = loop(250, async () => {
        const next = sms.state.messages.find((msg) => msg.reference !== null && !reported.has(msg.id));
        if (!next) return;
        reported.add(next.id);
        const res = await fetchJson(`${smsBase}/_sandbox/messages/${next.id}/status`, 'POST', { status: 'delivered' });
        const first = res.body.reports?.[0]?.webhook as { delivery_id: number; status: number | null } | undefined;
        // The provider tries again until the service answers (API B's database sessions may be cut just then).
        let status = first?.status ?? null;
        for (let i = 0; first && i < 60 && status !== 200; i++) {
          await sleep(500);
          const again = await fetchJson(`${smsBase}/_sandbox/webhooks/${first.delivery_id}/redeliver`, 'POST', {});
          status = again.body?.webhook?.status ?? null;
        }
        if (status !== 200) failures.push(`status report not accepted: ${res.text}`);
      });

      let k = 0;
      const chatLoad = loop(200, async () => {
        const session = sessions[k++ % sessions.length]!;
        if (!live(session) || !session.home.up) return;
        // Answered through the other API process.
        const other = session.home === apiA ? onB : apiA.up ? onA : null;
        if (!other) return;
        const res = record(
          'chat',
          await attempt(() =>
            other.post('/v1/messages', { channel: { id: chat.body.id }, contact: { id: session.contactId }, content: { type: 'text', payload: `reply ${k}` } }),
          ),
        );
        if (res?.status === 201 && session.connected) session.expected.push(String(res.body.id));
        if (k % 3 === 0 && live(session))
          await session.client.request('message_client', { content: { type: 'text', payload: `question ${k}` } }).catch(() => undefined);
      });

      // The capped account: one request at a time, through both API processes, from the moment
      // API A is back. (A process killed before it used the quota positions it had reserved ahead
      // takes them with it: the limit is never exceeded, but fewer may be let through; exactness
      // is checked across processes that live.)
      let apiABack!: () => void;
      const apiAIsBack = new Promise<void>((resolve) => (apiABack = resolve));
      let j = 0;
      /** The API process whose database sessions are being cut: the capped account keeps off it then. */
      let cutApi: Member | null = null;
      let cappedCall: Promise<unknown> = Promise.resolve();
      // It makes QUOTA_REQUESTS requests, spread over the load, however long each takes.
      const quotaLoad = apiAIsBack.then(() =>
        loop(
          Math.floor((DURATION_MS * 0.6) / QUOTA_REQUESTS),
          async () => {
            j += 1;
            const useA = apiA.up && cutApi !== apiA && (j % 2 === 0 || cutApi === apiB);
            const api = useA ? cappedApi[0] : cappedApi[1];
            const call = api.post('/v1/messages', {
              channel: { id: cappedChannel.body.id },
              contact: { phone_number: PHONES[j % PHONES.length]! },
              content: { type: 'text', payload: 'capped' },
            });
            cappedCall = call.catch(() => undefined);
            const res = record('capped', await call);
            if (res.status === 429) quota.refused += 1;
            else if (res.status === 201) quota.accepted += 1;
            else quota.other.push(`${res.status} ${res.text}`);
          },
          () => j < QUOTA_REQUESTS,
        ),
      );

      // The faults, at fixed points of the load.
      const faults = (async () => {
        try {
          await sleep(DURATION_MS * 0.25);
          apiA.up = false;
          for (const s of sessions.filter((x) => x.home === apiA)) s.connected = false;
          progress('SIGKILL api-a');
          await apiA.crash(2000);
          progress('api-a ready again');
          apiABack();
          // Its browsers come back to it with their session ids.
          for (const s of sessions.filter((x) => x.home === apiA)) {
            s.client.close();
            const again = await openChat(apiA.origin, { channelId: chat.body.id, origin: PAGE, sessionId: s.id });
            assert.equal(again.sessionId, s.id);
            chats.push(again.client);
            s.client = again.client;
            s.clients.push(again.client);
            s.connected = true;
          }
          await sleep(DURATION_MS * 0.2);
          progress('SIGKILL worker-1');
          await worker1.crash(2000);
          progress('worker-1 ready again');
          await sleep(DURATION_MS * 0.2);
          const ended = await terminateSessions(db.url, 'worker-2');
          assert.ok(ended > 0, `worker-2 had database sessions to end (exit ${worker2.process.child.exitCode}): ${worker2.process.output().slice(-3000)}`);
          progress(`ended ${ended} database sessions of worker-2`);
          await sleep(DURATION_MS * 0.15);
          // API B's sessions mid-load: its requests may answer 503 until it has connected again,
          // but whatever it acknowledged is stored. (The capped account's requests keep off it
          // meanwhile: a request that fails after taking its quota position lets fewer through.)
          cutApi = apiB;
          await cappedCall;
          const endedApi = await terminateSessions(db.url, 'api-b');
          assert.ok(endedApi > 0, `api-b had database sessions to end (exit ${apiB.process.child.exitCode}): ${apiB.process.output().slice(-3000)}`);
          progress(`ended ${endedApi} database sessions of api-b`);
          // Its chat connections are closed (broadcasts from API A may have been missed while its
          // listening connection was away); the browsers connect again and read what they missed.
          for (const session of sessions.filter((x) => x.home === apiB)) {
            await waitUntil(async () => session.client.events.some((e) => e.event === 'disconnect'), 30_000, `api-b closed session ${session.id}`);
            session.client.close();
            let again: Awaited<ReturnType<typeof openChat>> | null = null;
            for (let i = 0; i < 60 && !again; i++) {
              again = await openChat(apiB.origin, { channelId: chat.body.id, origin: PAGE, sessionId: session.id }).catch(() => null);
              if (!again) await sleep(500);
            }
            assert.ok(again, `session ${session.id} connected to api-b again`);
            assert.equal(again.sessionId, session.id);
            chats.push(again.client);
            session.client = again.client;
            session.clients.push(again.client);
            const history = await again.client.request('list_messages', { pagination: { max: 100 } });
            for (const msg of history.messages as Array<{ id: string }>) session.caughtUp.add(String(msg.id));
          }
          // Its instance number may come back after its chat link: ready again means both.
          await waitUntil(async () => (await fetch(`${apiB.origin}/readyz`).catch(() => null))?.status === 200, 60_000, 'api-b ready again');
          progress('api-b serves again; its chat sessions caught up');
          cutApi = null;
        } finally {
          apiABack();
          faultsDone = true;
        }
      })();

      await Promise.all([smsLoad, snLoad, inboundLoad, reportLoad, chatLoad, quotaLoad, faults]);
      progress('load done');
      assert.deepEqual(failures, [], 'nothing in the load failed');

      // Everything drains: the sends, the webhook deliveries (with their retries) and the reports.
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        const q = async (text: string, values: unknown[] = []) => (await admin.query(text, values)).rows;
        const unfinishedJobs = () => q(`select id, kind, status, attempts, run_at, lease_id, last_error from jobs where status in ('pending', 'running')`);
        await waitUntil(
          async () => (await unfinishedJobs()).length === 0,
          120_000,
          'every job finished',
          async () => JSON.stringify({ now: Date.now(), jobs: (await unfinishedJobs()).slice(0, 5) }),
        );
        const undeliveredRows = () => q(`select id, event_id, status, attempts, next_attempt_at, lease_id from deliveries where status <> 'delivered'`);
        await waitUntil(
          async () => (await undeliveredRows()).length === 0,
          120_000,
          'every webhook delivery delivered',
          async () => JSON.stringify({ now: Date.now(), deliveries: (await undeliveredRows()).slice(0, 5) }),
        );

        progress('drained');
        // 1. The shared hourly quota was exact: the channel's creation and exactly the rest of the limit were let through.
        assert.deepEqual(quota.other, []);
        assert.ok(quota.refused > 0, 'the load exceeded the quota');
        assert.equal(quota.accepted + 1, QUOTA_LIMIT, `accepted ${quota.accepted} + the channel's creation = the hourly limit`);

        // 2. Every message acknowledged with 201 is stored.
        const stored = new Set((await q('select id::text from messages where id = any($1::bigint[])', [[...accepted.keys()]])).map((r) => r.id as string));
        const lost = [...accepted.keys()].filter((id) => !stored.has(id));
        assert.deepEqual(lost, [], `all ${accepted.size} acknowledged messages are stored`);

        // 3. Every event reached its receiver with a 2xx; repeats only of an event's own id.
        const events = (await q('select e.id::text id from events e join deliveries d on d.event_id = e.id')).map((r) => r.id as string);
        const missing = events.filter((id) => !answeredOk.has(id));
        assert.deepEqual(missing, [], `all ${events.length} events reached their receiver`);
        const known = new Set(events);
        const bodies = new Map<string, Buffer>();
        for (const c of receiver.calls) {
          const id = String(c.headers['x-parley-event-id']);
          assert.ok(known.has(id), `a call names a stored event: ${id}`);
          const before = bodies.get(id);
          if (before) assert.ok(before.equals(c.raw), `a repeated event ${id} is the same event: same body`);
          else bodies.set(id, c.raw);
        }
        const repeated = [...answeredOk.values()].filter((v) => v > 1).length;

        // 4. Every SMS reached the platform exactly once (by our reference).
        const byReference = new Map<string, number>();
        for (const msg of sms.state.messages) if (msg.reference) byReference.set(msg.reference, (byReference.get(msg.reference) ?? 0) + 1);
        assert.deepEqual(
          [...smsSent].filter((id) => byReference.get(id) !== 1),
          [],
          `all ${smsSent.size} SMS at the provider exactly once`,
        );
        assert.deepEqual(
          [...byReference].filter(([, c]) => c > 1),
          [],
          'no SMS twice',
        );
        // 4b. Every socialnet_chat message acknowledged reached the platform exactly once (by its text).
        const snTimes = new Map<string, number>();
        for (const msg of sn.state.sentMessages) {
          const text = String(msg.message.text);
          snTimes.set(text, (snTimes.get(text) ?? 0) + 1);
        }
        assert.deepEqual(
          [...snSent.values()].filter((text) => snTimes.get(text) !== 1),
          [],
          `all ${snSent.size} socialnet_chat messages at the platform exactly once`,
        );
        assert.deepEqual(
          [...snTimes].filter(([, c]) => c > 1),
          [],
          'no socialnet_chat message twice',
        );
        const undelivered = await q(`select id::text from messages where id = any($1::bigint[]) and delivered_at is null`, [
          [...reported].map((pid) => sms.state.messages.find((x) => x.id === pid)!.reference),
        ]);
        assert.deepEqual(undelivered, [], 'every status report marked its message delivered');

        // 5. Inbound SMS: each stored once, with NLP where the channel has it.
        for (const inbound of inboundOk) {
          const rows = await q('select nlp from messages where channel_id = $1 and direction = $2 and external_id = $3', [
            inbound.channel,
            'received',
            inbound.providerId,
          ]);
          assert.equal(rows.length, 1, `inbound ${inbound.providerId} stored once`);
          if (smsChannels.find((c) => c.id === inbound.channel)!.nlp) assert.ok(rows[0].nlp, 'the NLP result is stored');
        }

        // 6. Every chat message sent to a connected session reached its browser (live, or read
        // with list_messages when the server closed its connection).
        for (const s of sessions) {
          const seenIds = new Set([...s.clients.flatMap((c) => c.received('message_server')).map((msg) => String(msg.id)), ...s.caughtUp]);
          const missed = s.expected.filter((id) => !seenIds.has(id));
          assert.deepEqual(missed, [], `session ${s.id} (${s.home.name}): all ${s.expected.length} messages arrived`);
        }

        // 7. Nothing is left leased: no job or delivery held by any process, dead or alive.
        assert.deepEqual(await q(`select id from jobs where lease_id is not null or status = 'running'`), [], 'no job left leased');
        assert.deepEqual(
          await q(`select id from deliveries where lease_id is not null and locked_until is not null and status <> 'delivered'`),
          [],
          'no delivery left leased',
        );

        console.log(
          JSON.stringify({
            durationS: DURATION_MS / 1000,
            acknowledged: accepted.size,
            sms: smsSent.size,
            socialnet: snSent.size,
            inbound: inboundOk.length,
            reports: reported.size,
            chat: sessions.reduce((sum, s) => sum + s.expected.length, 0),
            events: events.length,
            repeatedEvents: repeated,
            quota,
          }),
        );
      } finally {
        await admin.end();
      }
    },
  );
});

/** Ends the database sessions of one member (as an administrator or a pooler might). */
async function terminateSessions(url: string, name: string): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const appName = new URL(memberUrl(url, name)).searchParams.get('application_name');
    const res = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [appName]);
    return res.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string, state?: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}${state ? `: ${await state()}` : ''}`);
    await sleep(250);
  }
}

async function fetchJson(url: string, method: string, body: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}
