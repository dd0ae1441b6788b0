import { createMediaStore } from '../shared/media-store.js';
import { Sleeper } from '../shared/sleep.js';
import { baseState, buildStandIn, type StandIn } from '../shared/standin.js';
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
  const state: RbmState = {
    agents: new Map(),
    phones: new Map(),
    tokens: new Map(),
    agentMessages: [],
    agentEvents: [],
    userMessages: [],
    files: new Map(),
    ...baseState(opts),
    media: createMediaStore(),
  };
  const sleeper = new Sleeper();
  const ctx: RbContext = { state, options: opts, webhooks: new RbmWebhooks(state, opts), sleeper };

  return buildStandIn(ctx, {
    platform: 'rbm',
    formBodies: true,
    media: state.media,
    // Accounts and what they registered survive a restart; traffic does not.
    persist: { keys: ['agents', 'phones', 'tokens'] },
    routes: (app) => {
      registerControl(app, ctx);
      registerTokenEndpoint(app, ctx);
      registerApi(app, ctx);
    },
  });
}
