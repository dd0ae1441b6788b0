import Fastify from 'fastify';
import { createClock } from '../shared/clock.js';
import { CONTROL_PREFIX, isPlatformPath, registerCommonControlRoutes } from '../shared/control.js';
import { FaultQueue } from '../shared/faults.js';
import { registerFormParsers } from '../shared/form-body.js';
import { randomAlnum } from '../shared/ids.js';
import { OutboundLog } from '../shared/outbound.js';
import { RequestLog, registerRequestLog } from '../shared/request-log.js';
import { Sleeper } from '../shared/sleep.js';
import { makeLifecycle, type StandIn } from '../shared/standin.js';
import type { SpContext } from './context.js';
import { registerControlRoutes } from './control.js';
import { registerMessagesApi } from './messages-api.js';
import { resolveOptions, type SmsproviderOptions } from './options.js';
import type { SmsproviderState } from './state.js';
import { SmsWebhooks } from './webhooks.js';

export type { SmsproviderOptions } from './options.js';
export type { SmsproviderState } from './state.js';

export interface SmsproviderStandInOptions extends SmsproviderOptions {
  /** Initial live access key (default: random; see GET /_sandbox/account). */
  accessKey?: string;
  signingKey?: string;
}

/** Local stand-in of the SMS provider behind `mobile` channels (REST API, status reports, inbound SMS). */
export function createSmsproviderStandIn(options: SmsproviderStandInOptions = {}): StandIn<SmsproviderState> {
  const opts = resolveOptions(options);
  const clock = createClock(opts.now);
  const state: SmsproviderState = {
    accessKeys: new Map([[options.accessKey ?? `live_${randomAlnum(25)}`, 'live']]),
    signingKey: options.signingKey ?? randomAlnum(32),
    statusReportUrl: null,
    balance: null,
    numbers: new Map(),
    messages: [],
    inbound: [],
    optedOut: new Set(),
    faults: new FaultQueue(),
    requests: new RequestLog(),
    webhooks: new OutboundLog(opts.userAgent),
    clock,
    baseUrl: undefined,
  };
  const sleeper = new Sleeper();
  const ctx: SpContext = { state, options: opts, webhooks: new SmsWebhooks(state, opts), sleeper };

  const app = Fastify({ logger: opts.logger, forceCloseConnections: true });
  registerFormParsers(app, 1024 * 1024);
  registerRequestLog(app, state.requests, isPlatformPath, clock.now);
  app.get(CONTROL_PREFIX, async () => ({ platform: 'smsprovider', readme: 'sandbox/smsprovider/README.md' }));
  registerCommonControlRoutes(app, {
    faults: state.faults,
    requests: state.requests,
    outbound: state.webhooks,
    clock,
    redeliver: (record) => ctx.webhooks.redeliver(record),
  });
  registerControlRoutes(app, ctx);
  registerMessagesApi(app, ctx);

  const lifecycle = makeLifecycle(app, {
    onListening: (url) => {
      state.baseUrl = url;
    },
    onClose: () => sleeper.cancelAll(),
  });
  return { app, state, ...lifecycle, settle: () => state.webhooks.settle(), baseUrl: () => opts.publicBaseUrl ?? state.baseUrl };
}
