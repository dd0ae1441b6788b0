import { Type } from '@sinclair/typebox';
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ChatLimitSettings } from './domain/webchat/limits.js';
import type { RetentionSettings } from './domain/retention/purge.js';
import { checkTrustedProxies } from './lib/client-address.js';
import { ConfigError, listSetting, readEnv, type Environment, type SettingsContext, type SettingsFragment, type SettingsOf } from './lib/env-settings.js';
import { PRIVATE_FILE_MODE, ensurePrivateDirSync } from './lib/private-files.js';
import { DEFAULT_POOL_SIZE, isSqliteUrl } from './store/database-url.js';

export { ConfigError } from './lib/env-settings.js';

/**
 * Every setting of the service, read from the environment once. Nothing else reads process.env.
 * Each entry names its variable and has a documented default (see docs/configuration.md).
 * Settings that belong to one module (each connector's) are that module's fragment
 * (lib/env-settings.ts): the runtime hands the list to loadSettings, and this file names no platform.
 */
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
/** 32 bytes in base64, the form of ENCRYPTION_KEY. */
const KEY_FORM = /^[A-Za-z0-9+/]{43}=$/;
const Positive = Type.Integer({ minimum: 1 });

/** Webhook calls in flight per worker process. */
const WEBHOOK_CONCURRENCY_DEFAULT = 128;
/**
 * The most calls in flight to one receiver. A ceiling, not a start: each receiver's limit starts
 * at a few calls and grows only while it answers well (delivery/receiver-limit.ts), so a fast
 * receiver of a busy channel is not held to a round trip's worth of calls, and a slow one never
 * gets near it.
 */
export const WEBHOOK_ENDPOINT_CONCURRENCY_DEFAULT = 64;

export const ConfigSchema = Type.Object({
  PORT: Type.Optional(Port),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  METRICS_PORT: Type.Optional(Port),
  METRICS_HOST: Type.Optional(Type.String({ minLength: 1 })),
  // A bearer token of its own for /metrics (at least 16 characters), so a scraper needs no account.
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, pattern: '^[\\x21-\\x7e]+$' })),
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_POOL_SIZE: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  ROLE: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('api'), Type.Literal('worker')])),
  // Seconds a process that serves HTTP keeps answering after SIGTERM, not ready, before it stops accepting connections.
  SHUTDOWN_DRAIN_SECONDS: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  FILES_DIR: Type.Optional(Type.String({ minLength: 1 })),
  ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: KEY_FORM.source })),
  LOG_LEVEL: Type.Optional(Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)))),
  BODY_LIMIT_BYTES: Type.Optional(Positive),
  DEFAULT_PHONE_REGION: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  RATE_LIMIT_WINDOW_SECONDS: Type.Optional(Positive),
  AUTH_CACHE_MS: Type.Optional(Type.Integer({ minimum: 0 })),
  CHANNEL_CACHE_MS: Type.Optional(Type.Integer({ minimum: 0 })),
  WEBHOOK_ALLOWLIST: Type.Optional(Type.String()),
  WEBHOOK_RETRY_SCHEDULE: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?(,[0-9]+(\\.[0-9]+)?)*$' })),
  // A fraction from 0 to 1, e.g. 0.1.
  WEBHOOK_RETRY_JITTER: Type.Optional(Type.String({ pattern: '^(0(\\.[0-9]+)?|1(\\.0+)?)$' })),
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
  /**
   * The stand-ins take consecutive ports from here, one per stand-in (sandbox/registry.ts); the
   * room above it is checked where the ports are known: by loadSettings for the platform URLs.
   */
  SANDBOX_PORT_BASE: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  NLP_TIME_BUDGET_MS: Type.Optional(Type.Integer({ minimum: 10, maximum: 10_000 })),
  NLP_ALLOWLIST: Type.Optional(Type.String()),
  NLP_TRAINING_TIMEOUT_MS: Type.Optional(Type.Integer({ minimum: 1000, maximum: 3_600_000 })),
  NLP_TRAINING_CONCURRENCY: Type.Optional(Type.Integer({ minimum: 1, maximum: 32 })),
  NLP_TRAINING_MEMORY_MB: Type.Optional(Type.Integer({ minimum: 16, maximum: 16_384 })),
  ADMIN_EMAIL: Type.Optional(Type.String({ pattern: '^[^\\s@]+@[^\\s@]+$', maxLength: 254 })),
  /** log2 of scrypt's N for administration passwords; low values are for tests only. */
  ADMIN_PASSWORD_COST: Type.Optional(Type.Integer({ minimum: 10, maximum: 20 })),
  TRUSTED_PROXIES: Type.Optional(Type.String()),
  SANDBOX_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  // Retention (docs/retention.md): ages in days; messages and events are kept unless set, and
  // never for less than a week (the longest reply window a platform has).
  RETENTION_DELIVERIES_DAYS: Type.Optional(Type.Integer({ minimum: 1, maximum: 36_500 })),
  RETENTION_JOBS_DAYS: Type.Optional(Type.Integer({ minimum: 1, maximum: 36_500 })),
  RETENTION_IDEMPOTENCY_KEYS_DAYS: Type.Optional(Type.Integer({ minimum: 1, maximum: 36_500 })),
  RETENTION_MESSAGES_DAYS: Type.Optional(Type.Integer({ minimum: 7, maximum: 36_500 })),
  RETENTION_EVENTS_DAYS: Type.Optional(Type.Integer({ minimum: 7, maximum: 36_500 })),
  RETENTION_INTERVAL_SECONDS: Type.Optional(Type.Integer({ minimum: 60, maximum: 604_800 })),
  RETENTION_BATCH_SIZE: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  RETENTION_BATCH_PAUSE_MS: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
  RETENTION_LOAD_SHARE_PERCENT: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

const DAY_MS = 86_400_000;

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** Connections of the store's query pool on PostgreSQL (the whole budget: store/postgres/connections.ts). */
  databasePoolSize: number;
  /** `{base_url}`: public address of the API, ending in /v1, used in Location headers and file URLs. */
  publicUrl: string;
  /** PUBLIC_URL was set (false: the default built from PORT, right only for one process on SQLite). */
  publicUrlSet: boolean;
  role: 'all' | 'api' | 'worker';
  /**
   * After SIGTERM, how long (ms) a process with an HTTP listener goes on answering, not ready, before
   * it stops accepting connections; for a second after that every answer closes its connection, so a
   * proxy's kept-alive connections end with an answer instead of being cut while a request is on its
   * way (docs/deploy.md#upgrades).
   */
  shutdownDrainMs: number;
  /**
   * Where /metrics, /healthz and /readyz are served besides the API: a listener of their own when
   * `port` is set (a worker always has one: on PORT unless METRICS_PORT is set), else the API's.
   */
  operations: { port: number | null; host: string; token: string | null };
  dataDir: string;
  filesDir: string;
  encryptionKey: string;
  /** The file the key was read from (or generated into) when ENCRYPTION_KEY is not set; null when it is. */
  encryptionKeyFile: string | null;
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
    /** The most jitter adds to a retry's delay, as a fraction of it. */
    retryJitter: number;
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
  /** Where the local stand-ins listen (SANDBOX_PORT_BASE): a platform URL that is not set points at its stand-in. */
  sandboxPortBase: number;
  nlp: {
    /** How long a received text may wait for its channel's NLP engine, unless its integration says otherwise. */
    timeBudgetMs: number;
    /** Private hosts and ranges an external NLU server may be at (the address guard refuses them otherwise). */
    allowlist: string[];
    /** A built-in model's training is stopped (and failed) after this long. */
    trainingTimeoutMs: number;
    /** Trainings running at once in a worker process, apart from the send jobs' room; one account's one at a time. */
    trainingConcurrency: number;
    /** The heap of a training's thread (MB): a training that needs more is stopped (and failed). */
    trainingMemoryMb: number;
  };
  admin: {
    /** The first owner's e-mail, made on first start. */
    email: string;
    /** log2 of scrypt's N (domain/users/password.ts). */
    passwordCost: number;
    /** Proxies whose X-Forwarded-For and X-Forwarded-Proto the administration app believes. */
    trustedProxies: string[];
  };
  /** The platform stand-ins' base URL (`npm run sandbox`), for the app's local trial; undefined: no trial. */
  sandboxUrl: string | undefined;
  /** How long finished rows are kept, and how the worker's purge paces itself (docs/retention.md). */
  retention: RetentionSettings;
  /** The variables as read, for the settings other modules contribute (loadSettings). */
  environment: Environment;
}

/** The file in the data folder that holds the generated encryption key (when ENCRYPTION_KEY is not set). */
export function keyFileOf(dataDir: string): string {
  return join(dataDir, 'encryption.key');
}

/** A new encryption key: 32 random bytes in base64, the form ENCRYPTION_KEY takes (`parley key`). */
export function newEncryptionKey(): string {
  return randomBytes(32).toString('base64');
}

function readKeyFile(file: string): string {
  const key = readFileSync(file, 'utf8').trim();
  if (!KEY_FORM.test(key)) throw new ConfigError(`Invalid configuration: ENCRYPTION_KEY is not set and ${file} does not hold a key (32 bytes, base64)`);
  return key;
}

/**
 * Puts `key` in `file` unless the file exists, and answers the key the file holds: `key`, or the
 * one of a process that made the file first. The key is written whole to a file of its own and
 * then linked to its name, which fails if the name is taken: processes starting at once on one
 * data folder all end up with the same key, and none reads a file half written.
 */
export function claimKeyFile(file: string, key: string): string {
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, `${key}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  try {
    chmodSync(draft, PRIVATE_FILE_MODE);
    linkSync(draft, file);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readKeyFile(file);
    // A file system without hard links: the name made exclusively, then written.
    try {
      writeFileSync(file, `${key}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      return key;
    } catch (fallback) {
      if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return readKeyFile(file);
      throw error;
    }
  } finally {
    rmSync(draft, { force: true });
  }
}

/** The encryption key comes from configuration, or is generated once into the data folder. */
function loadOrCreateKey(file: string): string {
  if (existsSync(file)) return readKeyFile(file);
  ensurePrivateDirSync(dirname(file));
  return claimKeyFile(file, newEncryptionKey());
}

export function loadConfig(env: Environment = process.env): Config {
  const c = readEnv(env, ConfigSchema.properties);
  const port = c.PORT ?? 8080;
  const host = c.HOST ?? '0.0.0.0';
  const dataDir = resolve(c.DATA_DIR ?? './data');
  const databaseUrl = c.DATABASE_URL ?? join(dataDir, 'parley.db');
  if (isSqliteUrl(databaseUrl)) ensurePrivateDirSync(dirname(resolve(databaseUrl)));
  const publicUrl = (c.PUBLIC_URL ?? `http://localhost:${port}/v1`).replace(/\/+$/, '');
  if (!publicUrl.endsWith('/v1')) throw new ConfigError(`Invalid configuration: PUBLIC_URL must end in /v1 (got ${publicUrl})`);
  if ((c.TLS_CERT_FILE === undefined) !== (c.TLS_KEY_FILE === undefined)) {
    throw new ConfigError('Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE go together');
  }
  const chatTrustedProxies = listSetting(c.CHAT_TRUSTED_PROXIES);
  try {
    checkTrustedProxies(chatTrustedProxies);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: CHAT_TRUSTED_PROXIES=${JSON.stringify(c.CHAT_TRUSTED_PROXIES)} (${(error as Error).message})`);
  }
  // The chat's list serves the administration app too unless it has its own.
  const trustedProxies = c.TRUSTED_PROXIES === undefined ? chatTrustedProxies : listSetting(c.TRUSTED_PROXIES);
  try {
    checkTrustedProxies(trustedProxies);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: TRUSTED_PROXIES=${JSON.stringify(c.TRUSTED_PROXIES)} (${(error as Error).message})`);
  }
  if (c.METRICS_PORT !== undefined && c.METRICS_PORT !== 0 && c.METRICS_PORT === port && (c.ROLE ?? 'all') !== 'worker') {
    throw new ConfigError(`Invalid configuration: METRICS_PORT=${c.METRICS_PORT} is the API's PORT; leave it unset to serve /metrics with the API`);
  }
  const hookConcurrency = c.WEBHOOK_CONCURRENCY ?? WEBHOOK_CONCURRENCY_DEFAULT;
  const endpointConcurrency = c.WEBHOOK_ENDPOINT_CONCURRENCY ?? WEBHOOK_ENDPOINT_CONCURRENCY_DEFAULT;
  // Half of the calls by default (at least one receiver's worth): the other accounts keep the rest.
  const accountConcurrency = Math.min(hookConcurrency, c.WEBHOOK_ACCOUNT_CONCURRENCY ?? Math.max(endpointConcurrency, Math.ceil(hookConcurrency / 2)));
  const keyFile = c.ENCRYPTION_KEY === undefined ? keyFileOf(dataDir) : null;
  const schedule = (c.WEBHOOK_RETRY_SCHEDULE ?? '60,300,1200,3600,10800,28800').split(',').map(Number);
  return {
    port,
    host,
    databaseUrl,
    databasePoolSize: c.DATABASE_POOL_SIZE ?? DEFAULT_POOL_SIZE,
    publicUrl,
    publicUrlSet: c.PUBLIC_URL !== undefined,
    role: c.ROLE ?? 'all',
    shutdownDrainMs: (c.SHUTDOWN_DRAIN_SECONDS ?? 0) * 1000,
    operations: {
      port: c.METRICS_PORT ?? ((c.ROLE ?? 'all') === 'worker' ? port : null),
      host: c.METRICS_HOST ?? host,
      token: c.METRICS_TOKEN ?? null,
    },
    dataDir,
    filesDir: resolve(c.FILES_DIR ?? join(dataDir, 'files')),
    encryptionKey: keyFile === null ? (c.ENCRYPTION_KEY as string) : loadOrCreateKey(keyFile),
    encryptionKeyFile: keyFile,
    logLevel: c.LOG_LEVEL ?? 'info',
    bodyLimitBytes: c.BODY_LIMIT_BYTES ?? 1024 * 1024,
    defaultPhoneRegion: c.DEFAULT_PHONE_REGION,
    rateLimitWindowSeconds: c.RATE_LIMIT_WINDOW_SECONDS ?? 3600,
    authCacheMs: c.AUTH_CACHE_MS ?? 5000,
    channelCacheMs: c.CHANNEL_CACHE_MS ?? 5000,
    webhook: {
      allowlist: listSetting(c.WEBHOOK_ALLOWLIST),
      retryScheduleSeconds: schedule,
      retryJitter: Number(c.WEBHOOK_RETRY_JITTER ?? 0.1),
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
    sandboxPortBase: c.SANDBOX_PORT_BASE ?? 9101,
    nlp: {
      timeBudgetMs: c.NLP_TIME_BUDGET_MS ?? 500,
      allowlist: listSetting(c.NLP_ALLOWLIST),
      trainingTimeoutMs: c.NLP_TRAINING_TIMEOUT_MS ?? 120_000,
      trainingConcurrency: c.NLP_TRAINING_CONCURRENCY ?? 1,
      trainingMemoryMb: c.NLP_TRAINING_MEMORY_MB ?? 512,
    },
    admin: {
      email: c.ADMIN_EMAIL ?? 'admin@localhost',
      passwordCost: c.ADMIN_PASSWORD_COST ?? 15,
      trustedProxies,
    },
    sandboxUrl: c.SANDBOX_URL?.replace(/\/+$/, ''),
    retention: {
      deliveriesMs: (c.RETENTION_DELIVERIES_DAYS ?? 30) * DAY_MS,
      jobsMs: (c.RETENTION_JOBS_DAYS ?? 7) * DAY_MS,
      idempotencyKeysMs: (c.RETENTION_IDEMPOTENCY_KEYS_DAYS ?? 1) * DAY_MS,
      messagesMs: c.RETENTION_MESSAGES_DAYS === undefined ? null : c.RETENTION_MESSAGES_DAYS * DAY_MS,
      eventsMs: c.RETENTION_EVENTS_DAYS === undefined ? null : c.RETENTION_EVENTS_DAYS * DAY_MS,
      intervalMs: (c.RETENTION_INTERVAL_SECONDS ?? 3600) * 1000,
      // SQLite runs a batch on the event loop (its driver is synchronous, about 15 µs a row):
      // smaller batches keep the requests that wait for one short.
      batchSize: c.RETENTION_BATCH_SIZE ?? (isSqliteUrl(databaseUrl) ? 100 : 1000),
      pauseMs: c.RETENTION_BATCH_PAUSE_MS ?? 20,
      loadSharePercent: c.RETENTION_LOAD_SHARE_PERCENT ?? 5,
      // A SQLite batch holds up every request of the process while it runs; a PostgreSQL one
      // only shares the database's cores.
      busyBatchMs: isSqliteUrl(databaseUrl) ? 2 : 10,
    },
    environment: { ...env },
  };
}

/**
 * The settings the fragments of `list` contribute (each connector its own), read from the
 * variables the configuration was loaded from, with the same checks: a bad value is a ConfigError
 * naming the variable. A platform URL that is not set points at its local stand-in: `npm run
 * sandbox` listens on consecutive ports from SANDBOX_PORT_BASE.
 */
export function loadSettings<L extends Record<string, SettingsFragment<any, unknown>>>(config: Config, list: L): SettingsOf<L> {
  const context: SettingsContext = {
    standInUrl: (offset) => {
      const port = config.sandboxPortBase + offset;
      if (port > 65535)
        throw new ConfigError(`Invalid configuration: SANDBOX_PORT_BASE=${config.sandboxPortBase} (leaves no port for the stand-in ${offset} above it)`);
      return `http://127.0.0.1:${port}`;
    },
  };
  const settings: Record<string, unknown> = {};
  for (const [name, fragment] of Object.entries(list)) settings[name] = fragment.parse(readEnv(config.environment, fragment.env), context);
  return settings as SettingsOf<L>;
}
