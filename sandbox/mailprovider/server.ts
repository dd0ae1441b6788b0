import { randomHex } from '../shared/ids.js';
import { Sleeper } from '../shared/sleep.js';
import { baseState, buildStandIn, type StandIn } from '../shared/standin.js';
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
  const state: MailproviderState = {
    apiKeys: new Set([options.apiKey ?? `key-${randomHex(16)}`]),
    webhookSigningKey: options.webhookSigningKey ?? randomHex(16),
    webhookReadForm: 'urls',
    signingKeyReadable: true,
    domains: new Map((options.domains ?? ['mg.sandbox.test']).map((name) => [name, { name, webhooks: new Map() }])),
    routes: [],
    messages: [],
    ...baseState(opts),
  };
  const sleeper = new Sleeper();
  const ctx: MpContext = { state, options: opts, sleeper };

  // Redelivery keeps the same body (and, as the provider does on retries, the same signature fields).
  return buildStandIn(ctx, {
    platform: 'mailprovider',
    bodyLimit: BODY_LIMIT,
    formBodies: true,
    // Accounts and what they registered survive a restart; traffic does not.
    persist: { keys: ['apiKeys', 'webhookSigningKey', 'webhookReadForm', 'signingKeyReadable', 'domains', 'routes'] },
    routes: (app) => {
      registerControl(app, ctx);
      registerApi(app, ctx);
    },
  });
}
