/**
 * Connector tests run the whole service against the platform stand-ins over real HTTP: the
 * stand-ins on port 0, the service pointed at them, a webhook receiver per channel that checks
 * X-Hub-Signature itself, and a small file server for media the platforms download.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../../src/lib/clock.js';
import type { Dialect } from '../../helpers/databases.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhooks.js';
import { createSocialnetChatStandIn } from '../../../sandbox/socialnet_chat/server.js';
import { createBotmsgStandIn } from '../../../sandbox/botmsg/server.js';
import { createSmsproviderStandIn } from '../../../sandbox/smsprovider/server.js';
import { makePng } from '../../../sandbox/shared/png.js';

/** Real time plus a jump the test makes: shared by the service and the stand-ins (messaging windows). */
export class OffsetClock implements Clock {
  offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}

export const APP_ID = '700100200300400';
export const APP_SECRET = 'app-secret-of-the-test-app';
/** With capitals: the platform sends it back exactly as registered, and only an exact match may pass. */
export const VERIFY_TOKEN = 'Verify-Token-Of-The-Service';
export const SECRET_HEADER = 'X-Botmsg-Bot-Api-Secret-Token';
/** The SMS provider account of the harness: the keys test/api/messages-fixtures.ts gives mobile channels. */
export const SMS_ACCESS_KEY = 'key';
export const SMS_SIGNING_KEY = 'sign';

export interface JsonAnswer {
  status: number;
  body: any;
  text: string;
}

export async function http(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' || Buffer.isBuffer(body) ? (body as string) : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text
  }
  return { status: res.status, body: parsed, text };
}

/** Files the platforms download when the service sends media: served with the right content type. */
export interface MediaServer {
  url(name: string): string;
  /** Every request the server got: method, file name and Range header. */
  requests: Array<{ method: string; name: string; range: string | undefined }>;
  close(): Promise<void>;
}

/** A video larger than any platform takes: only its size is served (HEAD); a download fails. */
export const HUGE_VIDEO = { name: 'huge.mp4', bytes: 60 * 1024 * 1024 };

const MEDIA: Record<string, { type: string; bytes: Buffer }> = {
  'photo.png': { type: 'image/png', bytes: makePng(40, 30, { r: 200, g: 30, b: 30 }) },
  'clip.mp4': { type: 'video/mp4', bytes: Buffer.from('not really a video') },
  'song.mp3': { type: 'audio/mpeg', bytes: Buffer.from('not really audio') },
  'terms.pdf': { type: 'application/pdf', bytes: Buffer.from('%PDF-1.4 not really a pdf') },
};

export async function startMediaServer(): Promise<MediaServer> {
  const requests: MediaServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? '').split('/').pop() ?? '';
    requests.push({ method: req.method ?? '', name, range: req.headers.range });
    if (name === HUGE_VIDEO.name) {
      if (req.method === 'HEAD') return void res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(HUGE_VIDEO.bytes) }).end();
      return void res.writeHead(500).end();
    }
    const file = MEDIA[name];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.bytes.length) }).end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/media/${name}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A page on the socialnet_chat stand-in, connected as a channel whose webhook is its own receiver. */
export interface ConnectedPage {
  pageId: string;
  channelId: string;
  hook: WebhookReceiver;
  body: any;
}

export interface Harness {
  s: TestServer;
  clock: OffsetClock;
  sn: ReturnType<typeof createSocialnetChatStandIn>;
  snBase: string;
  bm: ReturnType<typeof createBotmsgStandIn>;
  bmBase: string;
  sms: ReturnType<typeof createSmsproviderStandIn>;
  smsBase: string;
  media: MediaServer;
  receivers: WebhookReceiver[];
  /** A webhook receiver whose secret is set once the channel exists. */
  receiver(): Promise<WebhookReceiver>;
  /** The control API of the socialnet_chat stand-in (acting as its users and page admins): GET, or POST with a body. */
  snSandbox(path: string, body?: unknown): Promise<JsonAnswer>;
  /** The control API of the botmsg stand-in. */
  bmSandbox(path: string, body?: unknown): Promise<JsonAnswer>;
  /** The control API of the smsprovider stand-in. */
  smsSandbox(path: string, body?: unknown): Promise<JsonAnswer>;
  /** A page made on the stand-in, connected as a channel with a short-lived user token of its admin. */
  connectPage(name?: string): Promise<ConnectedPage>;
  close(): Promise<void>;
}

const control = (base: string) => (path: string, body?: unknown) => http(body === undefined ? 'GET' : 'POST', `${base}/_sandbox${path}`, body);

export async function startHarness(dialect: Dialect, env: Record<string, string> = {}, options: Omit<TestServerOptions, 'env'> = {}): Promise<Harness> {
  const clock = new OffsetClock();
  const sn = createSocialnetChatStandIn({ appId: APP_ID, appSecret: APP_SECRET, now: () => clock.now() });
  const snBase = await sn.listen(0);
  const bm = createBotmsgStandIn({ secretHeaderName: SECRET_HEADER, now: () => clock.now() });
  const bmBase = await bm.listen(0);
  const sms = createSmsproviderStandIn({ accessKey: SMS_ACCESS_KEY, signingKey: SMS_SIGNING_KEY, now: () => clock.now() });
  const smsBase = await sms.listen(0);
  const media = await startMediaServer();
  const s = await startTestServer(dialect, {
    ...options,
    clock,
    workers: true,
    env: {
      SOCIALNET_API_URL: snBase,
      SOCIALNET_APP_ID: APP_ID,
      SOCIALNET_APP_SECRET: APP_SECRET,
      SOCIALNET_VERIFY_TOKEN: VERIFY_TOKEN,
      BOTMSG_API_URL: bmBase,
      BOTMSG_SECRET_HEADER: SECRET_HEADER,
      SMSPROVIDER_API_URL: smsBase,
      PLATFORM_TIMEOUT_MS: '1500',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
      ...env,
    },
  });
  const receivers: WebhookReceiver[] = [];
  const receiver = async (): Promise<WebhookReceiver> => {
    const r = await startWebhookReceiver();
    receivers.push(r);
    return r;
  };
  const snSandbox = control(snBase);
  return {
    s,
    clock,
    sn,
    snBase,
    bm,
    bmBase,
    sms,
    smsBase,
    media,
    receivers,
    receiver,
    snSandbox,
    bmSandbox: control(bmBase),
    smsSandbox: control(smsBase),
    async connectPage(name = 'Coffee Shop') {
      const made = await snSandbox('/pages', { name, category: 'Restaurant' });
      assert.equal(made.status, 201, made.text);
      const hook = await receiver();
      const res = await s.api.post('/v1/channels', {
        type: 'socialnet_chat',
        name: `${name} channel`,
        webhook: { url: hook.url },
        socialnet_page: { id: made.body.page.id, access_token: made.body.admin.user_access_token },
      });
      assert.equal(res.status, 201, res.text);
      hook.secret = res.body.webhook.secret;
      return { pageId: made.body.page.id, channelId: res.body.id, hook, body: res.body };
    },
    async close() {
      await s.close();
      await Promise.allSettled([sn.close(), bm.close(), sms.close(), media.close(), ...receivers.map((r) => r.close())]);
    },
  };
}
