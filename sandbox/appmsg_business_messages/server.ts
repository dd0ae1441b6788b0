import Fastify from 'fastify';
import { createClock } from '../shared/clock.js';
import { CONTROL_PREFIX, isPlatformPath, registerCommonControlRoutes } from '../shared/control.js';
import { FaultQueue } from '../shared/faults.js';
import { OutboundLog } from '../shared/outbound.js';
import { RequestLog, registerRequestLog } from '../shared/request-log.js';
import { Sleeper } from '../shared/sleep.js';
import { makeLifecycle, type StandIn } from '../shared/standin.js';
import { registerApi, type AbContext } from './api.js';
import { BusinessCallbacks } from './callbacks.js';
import { registerControl } from './control.js';
import { resolveOptions, type AppmsgBusinessOptions } from './options.js';
import type { AppmsgBusinessState } from './state.js';

export type { AppmsgBusinessOptions } from './options.js';
export type { AppmsgBusinessState } from './state.js';

/** Local stand-in of the appmsg business-messages partner API (send_message, sandbox callbacks). */
export function createAppmsgBusinessMessagesStandIn(options: AppmsgBusinessOptions = {}): StandIn<AppmsgBusinessState> {
  const opts = resolveOptions(options);
  const clock = createClock(opts.now);
  const state: AppmsgBusinessState = {
    services: new Map(),
    users: new Map(),
    templates: new Map(),
    messages: [],
    faults: new FaultQueue(),
    requests: new RequestLog(),
    webhooks: new OutboundLog(opts.userAgent),
    clock,
    baseUrl: undefined,
  };
  const sleeper = new Sleeper();
  const ctx: AbContext = { state, options: opts, sleeper };
  const callbacks = new BusinessCallbacks(state, opts);

  const app = Fastify({ logger: opts.logger, forceCloseConnections: true });
  registerRequestLog(app, state.requests, isPlatformPath, clock.now);
  app.get(CONTROL_PREFIX, async () => ({ platform: 'appmsg_business_messages', readme: 'sandbox/appmsg_business_messages/README.md' }));
  registerCommonControlRoutes(app, { faults: state.faults, requests: state.requests, outbound: state.webhooks, clock, redeliver: (r) => callbacks.redeliver(r) });
  registerControl(app, ctx, callbacks);
  registerApi(app, ctx);

  const lifecycle = makeLifecycle(app, {
    onListening: (url) => {
      state.baseUrl = url;
    },
    onClose: () => sleeper.cancelAll(),
  });
  return { app, state, ...lifecycle, settle: () => state.webhooks.settle(), baseUrl: () => opts.publicBaseUrl ?? state.baseUrl };
}
