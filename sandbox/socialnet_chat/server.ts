import Fastify from 'fastify';
import { createClock } from '../shared/clock.js';
import { CONTROL_PREFIX, isPlatformPath, registerCommonControlRoutes } from '../shared/control.js';
import { FaultQueue } from '../shared/faults.js';
import { registerFormParsers } from '../shared/form-body.js';
import { randomAlnum, randomDigits } from '../shared/ids.js';
import { createMediaStore, registerMediaRoutes } from '../shared/media-store.js';
import { OutboundLog } from '../shared/outbound.js';
import { makePng } from '../shared/png.js';
import { RequestLog, registerRequestLog } from '../shared/request-log.js';
import { Sleeper } from '../shared/sleep.js';
import { makeLifecycle, type StandIn } from '../shared/standin.js';
import type { SnContext } from './context.js';
import { registerActionRoutes } from './control-actions.js';
import { registerInspectRoutes } from './control-inspect.js';
import { registerSetupRoutes } from './control-setup.js';
import { registerApiRoutes } from './api-routes.js';
import { resolveOptions, type SocialnetChatOptions } from './options.js';
import type { SocialnetChatState } from './state.js';
import { SocialnetWebhooks } from './webhooks.js';

export type { SocialnetChatOptions } from './options.js';
export type { SocialnetChatState } from './state.js';

const BODY_LIMIT = 30 * 1024 * 1024;

/** Local stand-in of the socialnet_chat platform (versioned API, webhooks, control API). */
export function createSocialnetChatStandIn(options: SocialnetChatOptions = {}): StandIn<SocialnetChatState> {
  const opts = resolveOptions(options, { appId: randomDigits(15), appSecret: randomAlnum(32).toLowerCase() });
  const clock = createClock(opts.now);
  const state: SocialnetChatState = {
    app: { id: opts.appId, secret: opts.appSecret, name: opts.appName, requireAppSecretProof: opts.requireAppSecretProof, subscription: null },
    admins: new Map(),
    pages: new Map(),
    tokens: new Map(),
    users: new Map(),
    sentMessages: [],
    senderActions: [],
    inboundMessages: [],
    phoneRequests: [],
    userRefs: new Map(),
    attachments: new Map(),
    faults: new FaultQueue(),
    requests: new RequestLog(),
    webhooks: new OutboundLog(opts.userAgent),
    media: createMediaStore(),
    clock,
    baseUrl: undefined,
  };
  const sleeper = new Sleeper();
  const ctx: SnContext = { state, options: opts, webhooks: new SocialnetWebhooks(state, opts), sleeper };

  const app = Fastify({ logger: opts.logger, bodyLimit: BODY_LIMIT, forceCloseConnections: true });
  registerFormParsers(app, BODY_LIMIT);
  registerRequestLog(app, state.requests, isPlatformPath, clock.now);
  registerMediaRoutes(app, state.media);
  app.get('/_media/map', async (_req, reply) => reply.header('content-type', 'image/png').send(makePng(32, 32, { r: 90, g: 160, b: 90 })));
  app.get(CONTROL_PREFIX, async () => ({ platform: 'socialnet_chat', readme: 'sandbox/socialnet_chat/README.md' }));
  registerCommonControlRoutes(app, {
    faults: state.faults,
    requests: state.requests,
    outbound: state.webhooks,
    clock,
    redeliver: (record) => ctx.webhooks.redeliver(record),
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
