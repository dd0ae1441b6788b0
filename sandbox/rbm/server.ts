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
    partners: new Map(),
    brands: new Map(),
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
    persist: {
      keys: ['agents', 'partners', 'brands', 'phones', 'tokens'],
      // Agents kept by an older stand-in lack the fields added since.
      afterRestore: (s) => {
        s.partners ??= new Map();
        s.brands ??= new Map();
        for (const agent of s.agents.values()) {
          agent.verification ??= 'VERIFICATION_STATE_VERIFIED';
          agent.launchComments ??= new Map();
          agent.testerInvites ??= [];
        }
      },
    },
    routes: (app) => {
      registerControl(app, ctx);
      registerTokenEndpoint(app, ctx);
      registerApi(app, ctx);
    },
  });
}
