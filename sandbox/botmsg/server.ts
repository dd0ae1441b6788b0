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
import { callMethod, registerApiRoutes } from './api-routes.js';
import type { BmContext } from './context.js';
import { registerActionRoutes } from './control-actions.js';
import { registerInspectRoutes } from './control-inspect.js';
import { registerSetupRoutes } from './control-setup.js';
import { resolveOptions, type BotmsgOptions } from './options.js';
import type { BotmsgState } from './state.js';
import { UpdateDispatcher } from './updates.js';

export type { BotmsgOptions } from './options.js';
export type { BotmsgState } from './state.js';

const BODY_LIMIT = 60 * 1024 * 1024;

/** Local stand-in of the botmsg platform (Bot API, webhook updates, control API). */
export function createBotmsgStandIn(options: BotmsgOptions = {}): StandIn<BotmsgState> {
  const opts = resolveOptions(options);
  const clock = createClock(opts.now);
  const state: BotmsgState = {
    bots: new Map(),
    users: new Map(),
    messages: [],
    files: new Map(),
    callbackQueries: new Map(),
    chatActions: [],
    faults: new FaultQueue(),
    requests: new RequestLog(),
    webhooks: new OutboundLog(opts.userAgent),
    media: createMediaStore(),
    clock,
    baseUrl: undefined,
  };
  const sleeper = new Sleeper();
  const updates = new UpdateDispatcher(state, opts);
  const ctx: BmContext = { state, options: opts, sleeper, updates };
  updates.setExecutor((bot, method, params) => callMethod(ctx, bot, method, params, [], opts.publicBaseUrl ?? state.baseUrl ?? ''));

  const app = Fastify({ logger: opts.logger, bodyLimit: BODY_LIMIT, forceCloseConnections: true });
  registerFormParsers(app, BODY_LIMIT);
  registerRequestLog(app, state.requests, isPlatformPath, clock.now);
  registerMediaRoutes(app, state.media);
  app.get(CONTROL_PREFIX, async () => ({ platform: 'botmsg', readme: 'sandbox/botmsg/README.md' }));
  registerCommonControlRoutes(app, {
    faults: state.faults,
    requests: state.requests,
    outbound: state.webhooks,
    clock,
    redeliver: (record) =>
      state.webhooks.send({
        method: record.method,
        url: record.url,
        kind: record.kind,
        body: record.requestBody,
        headers: record.requestHeaders,
        timeoutMs: opts.webhookTimeoutMs,
      }),
  });
  registerSetupRoutes(app, ctx);
  registerActionRoutes(app, ctx);
  registerInspectRoutes(app, ctx);
  registerApiRoutes(app, ctx);

  const lifecycle = makeLifecycle(app, {
    onListening: (url) => {
      state.baseUrl = url;
    },
    onClose: () => sleeper.cancelAll(),
  });
  return {
    app,
    state,
    ...lifecycle,
    settle: () => state.webhooks.settle(),
    baseUrl: () => opts.publicBaseUrl ?? state.baseUrl,
  };
}
