import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { SocialnetAppSettings } from './connectors/registry-defaults.js';
import type { ChatLimitSettings } from './domain/webchat/limits.js';
import { checkTrustedProxies } from './lib/client-address.js';
import { PRIVATE_FILE_MODE, ensurePrivateDirSync } from './lib/private-files.js';

/**
 * Every setting of the service, read from the environment once. Nothing else reads process.env.
 * Each entry names its variable and has a documented default (see docs/configuration.md).
 */
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const Positive = Type.Integer({ minimum: 1 });

export const ConfigSchema = Type.Object({
  PORT: Type.Optional(Port),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  ROLE: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('api'), Type.Literal('worker')])),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  FILES_DIR: Type.Optional(Type.String({ minLength: 1 })),
  ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$' })),
  LOG_LEVEL: Type.Optional(Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)))),
  BODY_LIMIT_BYTES: Type.Optional(Positive),
  DEFAULT_PHONE_REGION: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  RATE_LIMIT_WINDOW_SECONDS: Type.Optional(Positive),
  AUTH_CACHE_MS: Type.Optional(Type.Integer({ minimum: 0 })),
  CHANNEL_CACHE_MS: Type.Optional(Type.Integer({ minimum: 0 })),
  WEBHOOK_ALLOWLIST: Type.Optional(Type.String()),
  MEDIA_ALLOWLIST: Type.Optional(Type.String()),
  WEBHOOK_RETRY_SCHEDULE: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?(,[0-9]+(\\.[0-9]+)?)*$' })),
  WEBHOOK_TIMEOUT_MS: Type.Optional(Positive),
  WEBHOOK_CONCURRENCY: Type.Optional(Positive),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Optional(Positive),
  WEBHOOK_ACCOUNT_CONCURRENCY: Type.Optional(Positive),
  WORKER_POLL_MS: Type.Optional(Positive),
  SHARED_MODE_MESSAGE_LIMIT: Type.Optional(Type.Integer({ minimum: 0 })),
  CHAT_MAX_UPLOAD_BYTES: Type.Optional(Positive),
  CHAT_TRUSTED_PROXIES: Type.Optional(Type.String()),
  CHAT_CONNECTIONS_PER_ADDRESS: Type.Optional(Positive),
  CHAT_SESSIONS_PER_ADDRESS_PER_MINUTE: Type.Optional(Positive),
  CHAT_SESSIONS_BURST: Type.Optional(Positive),
  CHAT_EVENTS_PER_SECOND: Type.Optional(Positive),
  CHAT_EVENTS_BURST: Type.Optional(Positive),
  CHAT_UPLOAD_BYTES_PER_SESSION_PER_HOUR: Type.Optional(Positive),
  CHAT_UPLOAD_BYTES_PER_ADDRESS_PER_HOUR: Type.Optional(Positive),
  CHAT_CHANNEL_STORAGE_BYTES: Type.Optional(Positive),
  CHAT_UPLOAD_TTL_SECONDS: Type.Optional(Positive),
  CHAT_UPLOAD_SWEEP_SECONDS: Type.Optional(Positive),
  TLS_CERT_FILE: Type.Optional(Type.String({ minLength: 1 })),
  TLS_KEY_FILE: Type.Optional(Type.String({ minLength: 1 })),
  BOOTSTRAP_ACCOUNT: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  SANDBOX_PORT_BASE: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 - 6 })),
  SOCIALNET_API_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  BOTMSG_API_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  APPMSG_API_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  SMSPROVIDER_API_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  RBM_API_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  MAILPROVIDER_API_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  APPMSG_BUSINESS_API_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  NLP_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  PLATFORM_TIMEOUT_MS: Type.Optional(Positive),
  SOCIALNET_API_VERSION: Type.Optional(Type.String({ pattern: '^v[0-9]+\\.[0-9]+$' })),
  SOCIALNET_APP_ID: Type.Optional(Type.String({ minLength: 1 })),
  SOCIALNET_APP_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  SOCIALNET_VERIFY_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  SOCIALNET_TOKEN_PREFIX: Type.Optional(Type.String({ pattern: '^[a-z]{1,10}$' })),
  SOCIALNET_PROFILE_EDGE: Type.Optional(Type.String({ pattern: '^[a-z_]{1,60}_profile$' })),
  SOCIALNET_SUBSCRIBE_APP: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  BOTMSG_SECRET_HEADER: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' })),
});

type RawConfig = Static<typeof ConfigSchema>;

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** `{base_url}`: public address of the API, ending in /v1, used in Location headers and file URLs. */
  publicUrl: string;
  role: 'all' | 'api' | 'worker';
  dataDir: string;
  filesDir: string;
  encryptionKey: string;
  logLevel: string;
  bodyLimitBytes: number;
  defaultPhoneRegion: string | undefined;
  rateLimitWindowSeconds: number;
  authCacheMs: number;
  /** How long a process reuses a channel or contact it looked up (another instance's change shows within it). */
  channelCacheMs: number;
  webhook: {
    allowlist: string[];
    retryScheduleSeconds: number[];
    timeoutMs: number;
    concurrency: number;
    endpointConcurrency: number;
    /** Calls in flight for one account per worker process, so one account cannot take every slot. */
    accountConcurrency: number;
  };
  workerPollMs: number;
  sharedModeMessageLimit: number;
  /** Largest file a web chat user may upload (file_upload). */
  chatMaxUploadBytes: number;
  /** What one address, conversation and channel may use of the web chat. */
  chatLimits: ChatLimitSettings;
  /** Proxies whose X-Forwarded-For names the web chat's client (addresses, CIDR ranges, `loopback`...). */
  chatTrustedProxies: string[];
  /** How often unreferenced web chat uploads are looked for. */
  chatUploadSweepMs: number;
  tls: { certFile: string; keyFile: string } | undefined;
  bootstrapAccount: boolean;
  platforms: {
    socialnetApiUrl: string;
    botmsgApiUrl: string;
    appmsgApiUrl: string;
    smsproviderApiUrl: string;
    rbmApiUrl: string;
    mailproviderApiUrl: string;
    appmsgBusinessApiUrl: string;
    nlpUrl: string | undefined;
    /** Deadline of each call to a platform (connectors). */
    timeoutMs: number;
    /** Private hosts, addresses and ranges (optionally with a port) received files may be downloaded from. */
    mediaAllowlist: string[];
    /** The socialnet_chat app the service runs as, and the brand-carrying names of its protocol. */
    socialnet: SocialnetAppSettings;
    botmsgSecretHeader: string;
  };
}

export class ConfigError extends Error {}

function isSqlitePath(url: string): boolean {
  return !/^postgres(ql)?:\/\//.test(url);
}

/** The encryption key comes from configuration, or is generated once into the data folder. */
function loadOrCreateKey(dataDir: string): string {
  const file = join(dataDir, 'encryption.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  ensurePrivateDirSync(dataDir);
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: PRIVATE_FILE_MODE });
  chmodSync(file, PRIVATE_FILE_MODE);
  return key;
}

const NUMERIC = new Set([
  'PORT',
  'BODY_LIMIT_BYTES',
  'RATE_LIMIT_WINDOW_SECONDS',
  'AUTH_CACHE_MS',
  'CHANNEL_CACHE_MS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_CONCURRENCY',
  'WEBHOOK_ENDPOINT_CONCURRENCY',
  'WEBHOOK_ACCOUNT_CONCURRENCY',
  'WORKER_POLL_MS',
  'SHARED_MODE_MESSAGE_LIMIT',
  'CHAT_MAX_UPLOAD_BYTES',
  'PLATFORM_TIMEOUT_MS',
  'SANDBOX_PORT_BASE',
  'CHAT_CONNECTIONS_PER_ADDRESS',
  'CHAT_SESSIONS_PER_ADDRESS_PER_MINUTE',
  'CHAT_SESSIONS_BURST',
  'CHAT_EVENTS_PER_SECOND',
  'CHAT_EVENTS_BURST',
  'CHAT_UPLOAD_BYTES_PER_SESSION_PER_HOUR',
  'CHAT_UPLOAD_BYTES_PER_ADDRESS_PER_HOUR',
  'CHAT_CHANNEL_STORAGE_BYTES',
  'CHAT_UPLOAD_TTL_SECONDS',
  'CHAT_UPLOAD_SWEEP_SECONDS',
]);

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value === undefined || value === '') continue;
    raw[key] = NUMERIC.has(key) && /^-?[0-9]+$/.test(value) ? Number(value) : value;
  }
  if (!Value.Check(ConfigSchema, raw)) {
    const first = [...Value.Errors(ConfigSchema, raw)][0];
    const name = first ? first.path.slice(1) : 'configuration';
    throw new ConfigError(`Invalid configuration: ${name}=${JSON.stringify(raw[name] ?? null)} (${first?.message ?? 'invalid'})`);
  }
  const c = raw as RawConfig;
  const port = c.PORT ?? 8080;
  const host = c.HOST ?? '0.0.0.0';
  const dataDir = resolve(c.DATA_DIR ?? './data');
  const databaseUrl = c.DATABASE_URL ?? join(dataDir, 'parley.db');
  if (isSqlitePath(databaseUrl)) ensurePrivateDirSync(dirname(resolve(databaseUrl)));
  const publicUrl = (c.PUBLIC_URL ?? `http://localhost:${port}/v1`).replace(/\/+$/, '');
  if (!publicUrl.endsWith('/v1')) throw new ConfigError(`Invalid configuration: PUBLIC_URL must end in /v1 (got ${publicUrl})`);
  if ((c.TLS_CERT_FILE === undefined) !== (c.TLS_KEY_FILE === undefined)) {
    throw new ConfigError('Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE go together');
  }
  const chatTrustedProxies = (c.CHAT_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  try {
    checkTrustedProxies(chatTrustedProxies);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: CHAT_TRUSTED_PROXIES=${JSON.stringify(c.CHAT_TRUSTED_PROXIES)} (${(error as Error).message})`);
  }
  const hookConcurrency = c.WEBHOOK_CONCURRENCY ?? 64;
  const endpointConcurrency = c.WEBHOOK_ENDPOINT_CONCURRENCY ?? 16;
  // Half of the calls by default (at least one receiver's worth): the other accounts keep the rest.
  const accountConcurrency = Math.min(hookConcurrency, c.WEBHOOK_ACCOUNT_CONCURRENCY ?? Math.max(endpointConcurrency, Math.ceil(hookConcurrency / 2)));
  const schedule = (c.WEBHOOK_RETRY_SCHEDULE ?? '60,300,1200,3600,10800,28800').split(',').map(Number);
  // A platform URL not set explicitly points at its local stand-in: `npm run sandbox` listens on
  // consecutive ports from SANDBOX_PORT_BASE in this order (sandbox/registry.ts).
  const standIn = (offset: number) => `http://127.0.0.1:${(c.SANDBOX_PORT_BASE ?? 9101) + offset}`;
  return {
    port,
    host,
    databaseUrl,
    publicUrl,
    role: c.ROLE ?? 'all',
    dataDir,
    filesDir: resolve(c.FILES_DIR ?? join(dataDir, 'files')),
    encryptionKey: c.ENCRYPTION_KEY ?? loadOrCreateKey(dataDir),
    logLevel: c.LOG_LEVEL ?? 'info',
    bodyLimitBytes: c.BODY_LIMIT_BYTES ?? 1024 * 1024,
    defaultPhoneRegion: c.DEFAULT_PHONE_REGION,
    rateLimitWindowSeconds: c.RATE_LIMIT_WINDOW_SECONDS ?? 3600,
    authCacheMs: c.AUTH_CACHE_MS ?? 5000,
    channelCacheMs: c.CHANNEL_CACHE_MS ?? 5000,
    webhook: {
      allowlist: (c.WEBHOOK_ALLOWLIST ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
      retryScheduleSeconds: schedule,
      timeoutMs: c.WEBHOOK_TIMEOUT_MS ?? 60_000,
      concurrency: hookConcurrency,
      endpointConcurrency,
      accountConcurrency,
    },
    workerPollMs: c.WORKER_POLL_MS ?? 200,
    sharedModeMessageLimit: c.SHARED_MODE_MESSAGE_LIMIT ?? 1000,
    chatMaxUploadBytes: c.CHAT_MAX_UPLOAD_BYTES ?? 10 * 1024 * 1024,
    chatLimits: {
      connectionsPerAddress: c.CHAT_CONNECTIONS_PER_ADDRESS ?? 50,
      sessionsPerMinute: c.CHAT_SESSIONS_PER_ADDRESS_PER_MINUTE ?? 20,
      sessionsBurst: c.CHAT_SESSIONS_BURST ?? 60,
      eventsPerSecond: c.CHAT_EVENTS_PER_SECOND ?? 5,
      eventsBurst: c.CHAT_EVENTS_BURST ?? 30,
      uploadBytesPerSessionPerHour: c.CHAT_UPLOAD_BYTES_PER_SESSION_PER_HOUR ?? 50 * 1024 * 1024,
      uploadBytesPerAddressPerHour: c.CHAT_UPLOAD_BYTES_PER_ADDRESS_PER_HOUR ?? 200 * 1024 * 1024,
      channelStorageBytes: c.CHAT_CHANNEL_STORAGE_BYTES ?? 1024 * 1024 * 1024,
      unreferencedUploadTtlMs: (c.CHAT_UPLOAD_TTL_SECONDS ?? 86_400) * 1000,
    },
    chatTrustedProxies,
    chatUploadSweepMs: (c.CHAT_UPLOAD_SWEEP_SECONDS ?? 900) * 1000,
    tls: c.TLS_CERT_FILE && c.TLS_KEY_FILE ? { certFile: c.TLS_CERT_FILE, keyFile: c.TLS_KEY_FILE } : undefined,
    bootstrapAccount: (c.BOOTSTRAP_ACCOUNT ?? 'true') === 'true',
    platforms: {
      socialnetApiUrl: c.SOCIALNET_API_URL ?? standIn(0),
      botmsgApiUrl: c.BOTMSG_API_URL ?? standIn(1),
      smsproviderApiUrl: c.SMSPROVIDER_API_URL ?? standIn(2),
      appmsgApiUrl: c.APPMSG_API_URL ?? standIn(3),
      rbmApiUrl: c.RBM_API_URL ?? standIn(4),
      mailproviderApiUrl: c.MAILPROVIDER_API_URL ?? standIn(5),
      appmsgBusinessApiUrl: c.APPMSG_BUSINESS_API_URL ?? standIn(6),
      nlpUrl: c.NLP_URL,
      timeoutMs: c.PLATFORM_TIMEOUT_MS ?? 10_000,
      mediaAllowlist: (c.MEDIA_ALLOWLIST ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
      socialnet: {
        apiVersion: c.SOCIALNET_API_VERSION ?? 'v25.0',
        appId: c.SOCIALNET_APP_ID,
        appSecret: c.SOCIALNET_APP_SECRET,
        verifyToken: c.SOCIALNET_VERIFY_TOKEN,
        tokenPrefix: c.SOCIALNET_TOKEN_PREFIX ?? 'sn',
        profileEdge: c.SOCIALNET_PROFILE_EDGE ?? 'socialnet_chat_profile',
        subscribeApp: (c.SOCIALNET_SUBSCRIBE_APP ?? 'true') === 'true',
      },
      botmsgSecretHeader: c.BOTMSG_SECRET_HEADER ?? 'X-Botmsg-Bot-Api-Secret-Token',
    },
  };
}

export function isSqliteUrl(url: string): boolean {
  return isSqlitePath(url);
}
