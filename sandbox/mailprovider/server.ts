import Fastify from 'fastify';
import { createClock } from '../shared/clock.js';
import { CONTROL_PREFIX, isPlatformPath, registerCommonControlRoutes } from '../shared/control.js';
import { FaultQueue } from '../shared/faults.js';
import { registerFormParsers } from '../shared/form-body.js';
import { randomHex } from '../shared/ids.js';
import { OutboundLog } from '../shared/outbound.js';
import { RequestLog, registerRequestLog } from '../shared/request-log.js';
import { Sleeper } from '../shared/sleep.js';
import { makeLifecycle, type StandIn } from '../shared/standin.js';
import { registerApi } from './api.js';
import type { MpContext } from './context.js';
import { registerControl } from './control.js';
import { resolveOptions, type MailproviderOptions } from './options.js';
import type { MailproviderState } from './state.js';

export type { MailproviderOptions } from './options.js';
export type { MailproviderState } from './state.js';

const BODY_LIMIT = 30 * 1024 * 1024;

/** Local stand-in of the mail provider behind `email` channels (/v3 API, event webhooks, routes). */
export function createMailproviderStandIn(options: MailproviderOptions = {}): StandIn<MailproviderState> {
  const opts = resolveOptions(options);
  const clock = createClock(opts.now);
  const state: MailproviderState = {
    apiKeys: new Set([options.apiKey ?? `key-${randomHex(16)}`]),
    webhookSigningKey: options.webhookSigningKey ?? randomHex(16),
    domains: new Map((options.domains ?? ['mg.sandbox.test']).map((name) => [name, { name, webhooks: new Map() }])),
    routes: [],
    messages: [],
    faults: new FaultQueue(),
    requests: new RequestLog(),
    webhooks: new OutboundLog(opts.userAgent),
    clock,
    baseUrl: undefined,
  };
  const sleeper = new Sleeper();
  const ctx: MpContext = { state, options: opts, sleeper };

  const app = Fastify({ logger: opts.logger, bodyLimit: BODY_LIMIT, forceCloseConnections: true });
  registerFormParsers(app, BODY_LIMIT);
  registerRequestLog(app, state.requests, isPlatformPath, clock.now);
  app.get(CONTROL_PREFIX, async () => ({ platform: 'mailprovider', readme: 'sandbox/mailprovider/README.md' }));
  registerCommonControlRoutes(app, {
    faults: state.faults,
    requests: state.requests,
    outbound: state.webhooks,
    clock,
    // Same body (and, as the provider does on retries, the same signature fields).
    redeliver: (r) =>
      state.webhooks.send({
        method: r.method,
        url: r.url,
        kind: r.kind,
        headers: r.requestHeaders,
        timeoutMs: opts.webhookTimeoutMs,
        ...(r.requestBodyBytes ? { bodyBytes: r.requestBodyBytes } : { body: r.requestBody }),
      }),
  });
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
