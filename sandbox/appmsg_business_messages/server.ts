import { Sleeper } from '../shared/sleep.js';
import { baseState, buildStandIn, type StandIn } from '../shared/standin.js';
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
  const state: AppmsgBusinessState = {
    services: new Map(),
    users: new Map(),
    templates: new Map(),
    messages: [],
    ...baseState(opts),
  };
  const sleeper = new Sleeper();
  const ctx: AbContext = { state, options: opts, sleeper };
  const callbacks = new BusinessCallbacks(state, opts);

  return buildStandIn(ctx, {
    platform: 'appmsg_business_messages',
    // Accounts and what they registered survive a restart; traffic does not.
    persist: { keys: ['services', 'users', 'templates'] },
    routes: (app) => {
      registerControl(app, ctx, callbacks);
      registerApi(app, ctx);
    },
  });
}
