import { createMediaStore } from '../shared/media-store.js';
import { Sleeper } from '../shared/sleep.js';
import { baseState, buildStandIn, type StandIn } from '../shared/standin.js';
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
  const state: BotmsgState = {
    bots: new Map(),
    users: new Map(),
    messages: [],
    files: new Map(),
    callbackQueries: new Map(),
    chatActions: [],
    ...baseState(opts),
    media: createMediaStore(),
  };
  const sleeper = new Sleeper();
  const updates = new UpdateDispatcher(state, opts);
  const ctx: BmContext = { state, options: opts, sleeper, updates };
  updates.setExecutor((bot, method, params) => callMethod(ctx, bot, method, params, [], opts.publicBaseUrl ?? state.baseUrl ?? ''));

  return buildStandIn(ctx, {
    platform: 'botmsg',
    bodyLimit: BODY_LIMIT,
    formBodies: true,
    media: state.media,
    // Accounts and what they registered survive a restart; traffic does not.
    persist: { keys: ['bots', 'users'] },
    routes: (app) => {
      registerSetupRoutes(app, ctx);
      registerActionRoutes(app, ctx);
      registerInspectRoutes(app, ctx);
      registerApiRoutes(app, ctx);
    },
  });
}
