import { randomAlnum, randomDigits } from '../shared/ids.js';
import { createMediaStore } from '../shared/media-store.js';
import { makePng } from '../shared/png.js';
import { Sleeper } from '../shared/sleep.js';
import { baseState, buildStandIn, type StandIn } from '../shared/standin.js';
import type { SnContext } from './context.js';
import { registerActionRoutes } from './control-actions.js';
import { registerInspectRoutes } from './control-inspect.js';
import { registerSetupRoutes } from './control-setup.js';
import { registerApiRoutes } from './api-routes.js';
import { putProfilePicture } from './model.js';
import { resolveOptions, type SocialnetChatOptions } from './options.js';
import type { SocialnetChatState } from './state.js';
import { SocialnetWebhooks } from './webhooks.js';

export type { SocialnetChatOptions } from './options.js';
export type { SocialnetChatState } from './state.js';

const BODY_LIMIT = 30 * 1024 * 1024;

/** Local stand-in of the socialnet_chat platform (versioned API, webhooks, control API). */
export function createSocialnetChatStandIn(options: SocialnetChatOptions = {}): StandIn<SocialnetChatState> {
  const opts = resolveOptions(options, { appId: randomDigits(15), appSecret: randomAlnum(32).toLowerCase() });
  const state: SocialnetChatState = {
    app: {
      id: opts.appId,
      secret: opts.appSecret,
      name: opts.appName,
      requireAppSecretProof: opts.requireAppSecretProof,
      profileFieldsReviewed: opts.profileFieldsReviewed,
      subscription: null,
    },
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
    ...baseState(opts),
    media: createMediaStore(),
  };
  const sleeper = new Sleeper();
  const ctx: SnContext = { state, options: opts, webhooks: new SocialnetWebhooks(state, opts), sleeper };

  return buildStandIn(ctx, {
    platform: 'socialnet_chat',
    bodyLimit: BODY_LIMIT,
    formBodies: true,
    media: state.media,
    // The app, admins, pages, tokens and users survive a restart; traffic does not. Served media
    // is not kept, so users get their generated pictures again.
    persist: {
      keys: ['app', 'admins', 'pages', 'tokens', 'users', 'userRefs'],
      afterRestore: (s) => {
        for (const user of s.users.values()) user.profilePicMediaId = putProfilePicture(s.media, user.psid);
      },
    },
    routes: (app) => {
      app.get('/_media/map', async (_req, reply) => reply.header('content-type', 'image/png').send(makePng(32, 32, { r: 90, g: 160, b: 90 })));
      registerSetupRoutes(app, ctx);
      registerActionRoutes(app, ctx);
      registerInspectRoutes(app, ctx);
      registerApiRoutes(app, ctx);
    },
  });
}
