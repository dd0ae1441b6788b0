import Fastify from 'fastify';
import { createClock } from '../shared/clock.js';
import { CONTROL_PREFIX, isPlatformPath, registerCommonControlRoutes } from '../shared/control.js';
import { FaultQueue } from '../shared/faults.js';
import { registerFormParsers } from '../shared/form-body.js';
import { createMediaStore, registerMediaRoutes } from '../shared/media-store.js';
import { OutboundLog } from '../shared/outbound.js';
import { RequestLog, registerRequestLog } from '../shared/request-log.js';
import { Sleeper } from '../shared/sleep.js';
import { makeLifecycle, type StandIn } from '../shared/standin.js';
import { registerApi } from './api.js';
import { registerTokenEndpoint } from './auth.js';
import type { RbContext } from './context.js';
import { registerControl } from './control.js';
import { resolveOptions, type RbmOptions } from './options.js';
import type { RbmState } from './state.js';
import { RbmWebhooks } from './webhooks.js';

export type { RbmOptions } from './options.js';
export type { RbmState } from './state.js';

/** Local stand-in of the rbm platform (messaging API, management launch API, OAuth token endpoint, webhooks). */
export function createRbmStandIn(options: RbmOptions = {}): StandIn<RbmState> {
  const opts = resolveOptions(options);
  const clock = createClock(opts.now);
  const state: RbmState = {
    agents: new Map(),
    phones: new Map(),
    tokens: new Map(),
    agentMessages: [],
    agentEvents: [],
    userMessages: [],
    files: new Map(),
    faults: new FaultQueue(),
    requests: new RequestLog(),
    webhooks: new OutboundLog(opts.userAgent),
    media: createMediaStore(),
    clock,
    baseUrl: undefined,
  };
  const sleeper = new Sleeper();
  const ctx: RbContext = { state, options: opts, webhooks: new RbmWebhooks(state, opts), sleeper };

  const app = Fastify({ logger: opts.logger, forceCloseConnections: true });
  registerFormParsers(app, 1024 * 1024);
  registerRequestLog(app, state.requests, isPlatformPath, clock.now);
  registerMediaRoutes(app, state.media);
  app.get(CONTROL_PREFIX, async () => ({ platform: 'rbm', readme: 'sandbox/rbm/README.md' }));
  registerCommonControlRoutes(app, { faults: state.faults, requests: state.requests, outbound: state.webhooks, clock, redeliver: (r) => ctx.webhooks.redeliver(r) });
  registerControl(app, ctx);
  registerTokenEndpoint(app, ctx);
  registerApi(app, ctx);

  const lifecycle = makeLifecycle(app, {
    onListening: (url) => {
      state.baseUrl = url;
    },
    onClose: () => sleeper.cancelAll(),
  });
  return { app, state, ...lifecycle, settle: () => state.webhooks.settle(), baseUrl: () => opts.publicBaseUrl ?? state.baseUrl };
}
