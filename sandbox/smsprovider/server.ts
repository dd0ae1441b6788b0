import { randomAlnum } from '../shared/ids.js';
import { Sleeper } from '../shared/sleep.js';
import { baseState, buildStandIn, type StandIn } from '../shared/standin.js';
import type { SpContext } from './context.js';
import { registerControlRoutes } from './control.js';
import { registerMessagesApi } from './messages-api.js';
import { resolveOptions, type SmsproviderOptions } from './options.js';
import type { SmsproviderState } from './state.js';
import { SmsWebhooks } from './webhooks.js';

export type { SmsproviderOptions } from './options.js';
export type { SmsproviderState } from './state.js';

export interface SmsproviderStandInOptions extends SmsproviderOptions {
  /** Initial live access key (default: random; see GET /_sandbox/account). */
  accessKey?: string;
  signingKey?: string;
}

/** Local stand-in of the SMS provider behind `mobile` channels (REST API, status reports, inbound SMS). */
export function createSmsproviderStandIn(options: SmsproviderStandInOptions = {}): StandIn<SmsproviderState> {
  const opts = resolveOptions(options);
  const state: SmsproviderState = {
    accessKeys: new Map([[options.accessKey ?? `live_${randomAlnum(25)}`, 'live']]),
    signingKey: options.signingKey ?? randomAlnum(32),
    jwtAlgorithm: 'HS256',
    signStatusReports: true,
    statusReportUrl: null,
    balance: null,
    numbers: new Map(),
    messages: [],
    inbound: [],
    optedOut: new Set(),
    ...baseState(opts),
  };
  const sleeper = new Sleeper();
  const ctx: SpContext = { state, options: opts, webhooks: new SmsWebhooks(state, opts), sleeper };

  return buildStandIn(ctx, {
    platform: 'smsprovider',
    formBodies: true,
    // Retries are signed afresh (see SmsWebhooks.redeliver).
    redeliver: (record) => ctx.webhooks.redeliver(record),
    // Accounts and what they registered survive a restart; traffic does not.
    persist: { keys: ['accessKeys', 'signingKey', 'jwtAlgorithm', 'signStatusReports', 'statusReportUrl', 'balance', 'numbers', 'optedOut'] },
    routes: (app) => {
      registerControlRoutes(app, ctx);
      registerMessagesApi(app, ctx);
    },
  });
}
