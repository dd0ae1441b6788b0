import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { createClock, type SandboxClock } from './clock.js';
import { CONTROL_PREFIX, isPlatformPath, registerCommonControlRoutes } from './control.js';
import { FaultQueue } from './faults.js';
import { registerFormParsers } from './form-body.js';
import { registerMediaRoutes, type MediaStore } from './media-store.js';
import { OutboundLog, type OutboundRecord } from './outbound.js';
import { RequestLog, registerRequestLog } from './request-log.js';
import type { Sleeper } from './sleep.js';
import { restoreSnapshot, snapshotOf, type PersistSpec } from './snapshot.js';

// What every stand-in factory returns.
export interface StandIn<S> {
  /** The fastify instance (usable with app.inject). */
  app: FastifyInstance;
  /** In-memory state; tests may read it directly. */
  state: S;
  /** Starts listening; returns the base URL (e.g. http://127.0.0.1:9101). */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
  /** Resolves once every outbound call the stand-in started on its own (echoes, queued updates) ended. */
  settle(): Promise<void>;
  /** Base URL once listening (or the configured public base URL). */
  baseUrl(): string | undefined;
  /** The accounts, credentials and registrations kept across restarts, as JSON (see shared/snapshot.ts). */
  snapshot(): Record<string, unknown>;
  /** Puts a snapshot back (before listening), so earlier credentials keep working. */
  restore(snapshot: unknown): void;
}

/** The part of every stand-in's state that the shared plumbing (control API, request log, webhooks) uses. */
export interface StandInBaseState {
  faults: FaultQueue;
  requests: RequestLog;
  webhooks: OutboundLog;
  clock: SandboxClock;
  baseUrl: string | undefined;
}

/** The resolved options every stand-in has. */
export interface StandInCommonOptions {
  webhookTimeoutMs: number;
  publicBaseUrl: string | undefined;
  userAgent: string;
  logger: boolean;
  now: () => number;
}

/** Fresh shared state: fault queue, request and webhook logs, a movable clock, no base URL yet. */
export function baseState(opts: Pick<StandInCommonOptions, 'userAgent' | 'now'>): StandInBaseState {
  return {
    faults: new FaultQueue(),
    requests: new RequestLog(),
    webhooks: new OutboundLog(opts.userAgent),
    clock: createClock(opts.now),
    baseUrl: undefined,
  };
}

/** What every stand-in's context holds: its state, resolved options and the sleeper of its delays. */
export interface StandInContext<S extends StandInBaseState> {
  state: S;
  options: StandInCommonOptions;
  sleeper: Sleeper;
}

export interface StandInSetup<S> {
  /** Platform name: shown at GET /_sandbox and names the README (sandbox/<platform>/README.md). */
  platform: string;
  /** Largest request body in bytes (default 1 MiB, fastify's own). */
  bodyLimit?: number;
  /** Accept urlencoded and multipart bodies (up to bodyLimit) besides JSON. */
  formBodies?: boolean;
  /** Serve this store under /_media. */
  media?: MediaStore;
  /** How `POST /_sandbox/webhooks/:id/redeliver` re-sends (default: same bytes and headers). */
  redeliver?: (record: OutboundRecord) => Promise<OutboundRecord>;
  /** Registers the platform's own API and control routes, after the shared ones. */
  routes(app: FastifyInstance): void;
  /** What survives a restart of `npm run sandbox`. */
  persist: PersistSpec<S>;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Builds a stand-in: fastify app with the shared plumbing and control routes, plus the lifecycle. */
export function buildStandIn<S extends StandInBaseState>(ctx: StandInContext<S>, setup: StandInSetup<S>): StandIn<S> {
  const { state, options: opts } = ctx;
  const bodyLimit = setup.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const app = Fastify({ logger: opts.logger, bodyLimit, forceCloseConnections: true });
  if (setup.formBodies) registerFormParsers(app, bodyLimit);
  registerRequestLog(app, state.requests, isPlatformPath, state.clock.now);
  if (setup.media) registerMediaRoutes(app, setup.media);
  app.get(CONTROL_PREFIX, async () => ({ platform: setup.platform, readme: `sandbox/${setup.platform}/README.md` }));
  registerCommonControlRoutes(app, {
    faults: state.faults,
    requests: state.requests,
    outbound: state.webhooks,
    clock: state.clock,
    redeliver: setup.redeliver ?? ((record) => state.webhooks.resend(record, opts.webhookTimeoutMs)),
  });
  setup.routes(app);

  const lifecycle = makeLifecycle(app, {
    onListening: (url) => {
      state.baseUrl = url;
    },
    onClose: () => ctx.sleeper.cancelAll(),
  });
  return {
    app,
    state,
    ...lifecycle,
    settle: () => state.webhooks.settle(),
    baseUrl: () => opts.publicBaseUrl ?? state.baseUrl,
    snapshot: () => snapshotOf(state, setup.persist),
    restore: (snapshot) => restoreSnapshot(state, setup.persist, snapshot),
  };
}

export interface ListenHooks {
  onListening(baseUrl: string): void;
  onClose(): void;
}

export function makeLifecycle(app: FastifyInstance, hooks: ListenHooks): Pick<StandIn<unknown>, 'listen' | 'close'> {
  return {
    async listen(port = 0, host = '127.0.0.1'): Promise<string> {
      await app.listen({ port, host });
      const addr = app.server.address();
      if (addr === null || typeof addr === 'string') throw new Error('unexpected listen address');
      const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      const url = `http://${shownHost}:${addr.port}`;
      hooks.onListening(url);
      return url;
    },
    async close(): Promise<void> {
      hooks.onClose();
      await app.close();
    },
  };
}

/** Origin to put into URLs the stand-in hands out (media, profile pictures). */
export function originFor(req: FastifyRequest, configured: string | undefined): string {
  if (configured) return configured.replace(/\/$/, '');
  const host = req.headers.host ?? '127.0.0.1';
  return `http://${host}`;
}
