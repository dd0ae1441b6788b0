import { Sleeper } from '../shared/sleep.js';
import { baseState, buildStandIn, type StandIn } from '../shared/standin.js';
import { registerApi } from './api.js';
import type { NluContext } from './context.js';
import { registerControl } from './control.js';
import { buildModel } from './model.js';
import { resolveOptions, type NluserverOptions } from './options.js';
import type { NluserverState } from './state.js';

export type { ModelInput } from './model.js';
export type { NluserverOptions } from './options.js';
export type { NluserverState } from './state.js';

/** Local stand-in of the open-source NLU server (its HTTP API's parse, status and version routes, token auth). */
export function createNluserverStandIn(options: NluserverOptions = {}): StandIn<NluserverState> {
  const opts = resolveOptions(options);
  const now = opts.now();
  const model = options.model === undefined ? null : buildModel(options.model, now);
  if (typeof model === 'string') throw new Error(`model: ${model}`);
  const token = options.token ?? null;
  if (token === '') throw new Error('token must not be empty');
  const state: NluserverState = { model, token, ...baseState(opts) };
  const ctx: NluContext = { state, options: opts, sleeper: new Sleeper() };

  return buildStandIn(ctx, {
    platform: 'nluserver',
    // The model and the token survive a restart, as a server restarted on the same model and flags.
    persist: { keys: ['model', 'token'] },
    routes: (app) => {
      registerControl(app, ctx);
      registerApi(app, ctx);
    },
  });
}
