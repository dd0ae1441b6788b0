import { createMediaStore } from '../shared/media-store.js';
import { Sleeper } from '../shared/sleep.js';
import { baseState, buildStandIn, type StandIn } from '../shared/standin.js';
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
  const state: AppmsgState = {
    bots: new Map(),
    users: new Map(),
    sent: [],
    ...baseState(opts),
    media: createMediaStore(),
    // 64-bit tokens above 2^53, as the platform uses.
    nextToken: 5_741_311_803_571_721_087n,
  };
  const sleeper = new Sleeper();
  const ctx: AmContext = { state, options: opts, webhooks: new AppmsgWebhooks(state, opts), sleeper };

  // Bodies up to 30 KB are allowed; bigger ones get badData from the API, which the default 1 MiB limit lets through.
  return buildStandIn(ctx, {
    platform: 'appmsg',
    media: state.media,
    // Accounts and what they registered survive a restart; traffic does not.
    persist: { keys: ['bots', 'users', 'nextToken'] },
    routes: (app) => {
      registerControl(app, ctx);
      registerApi(app, ctx);
    },
  });
}
