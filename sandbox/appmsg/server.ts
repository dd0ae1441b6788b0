import Fastify from 'fastify';
import { createClock } from '../shared/clock.js';
import { CONTROL_PREFIX, isPlatformPath, registerCommonControlRoutes } from '../shared/control.js';
import { FaultQueue } from '../shared/faults.js';
import { createMediaStore, registerMediaRoutes } from '../shared/media-store.js';
import { OutboundLog } from '../shared/outbound.js';
import { RequestLog, registerRequestLog } from '../shared/request-log.js';
import { Sleeper } from '../shared/sleep.js';
import { makeLifecycle, type StandIn } from '../shared/standin.js';
import { registerApi } from './api.js';
import type { AmContext } from './context.js';
import { registerControl } from './control.js';
import { resolveOptions, type AppmsgOptions } from './options.js';
import type { AppmsgState } from './state.js';
import { AppmsgWebhooks } from './webhooks.js';

export type { AppmsgOptions } from './options.js';
export type { AppmsgState } from './state.js';

/** Local stand-in of the appmsg bot platform (POST /pa/* API, signed callbacks, control API). */
export function createAppmsgStandIn(options: AppmsgOptions = {}): StandIn<AppmsgState> {
  const opts = resolveOptions(options);
  const clock = createClock(opts.now);
  const state: AppmsgState = {
    bots: new Map(),
    users: new Map(),
    sent: [],
    faults: new FaultQueue(),
    requests: new RequestLog(),
    webhooks: new OutboundLog(opts.userAgent),
    media: createMediaStore(),
    clock,
    baseUrl: undefined,
    // 64-bit tokens above 2^53, as the platform uses.
    nextToken: 5_741_311_803_571_721_087n,
  };
  const sleeper = new Sleeper();
  const ctx: AmContext = { state, options: opts, webhooks: new AppmsgWebhooks(state, opts), sleeper };

  // Bodies up to 30 KB are allowed; bigger ones are answered with badData, so accept a bit more here.
  const app = Fastify({ logger: opts.logger, bodyLimit: 1024 * 1024, forceCloseConnections: true });
  registerRequestLog(app, state.requests, isPlatformPath, clock.now);
  registerMediaRoutes(app, state.media);
  app.get(CONTROL_PREFIX, async () => ({ platform: 'appmsg', readme: 'sandbox/appmsg/README.md' }));
  registerCommonControlRoutes(app, { faults: state.faults, requests: state.requests, outbound: state.webhooks, clock, redeliver: (r) => ctx.webhooks.redeliver(r) });
  registerControl(app, ctx);
  registerApi(app, ctx);

  const lifecycle = makeLifecycle(app, {
    onListening: (url) => {
      state.baseUrl = url;
    },
    onClose: () => sleeper.cancelAll(),
  });
  return { app, state, ...lifecycle, settle: () => state.webhooks.settle(), baseUrl: () => opts.publicBaseUrl ?? state.baseUrl };
}
