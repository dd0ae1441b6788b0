import type { ChannelInput, PlatformFailure, PlatformResult, VerifiedChannel } from '../connector.js';
import type { GraphClient } from './graph.js';
import { PAGE_CONNECTED, WEBHOOK_FIELDS, type SocialnetChatOptions } from './options.js';

/**
 * Connecting a page before the channel is saved (contract.md §4, the public API reference):
 * 1. the token is inspected (`debug_token` with the app token) when the app is configured;
 * 2. a user token (short-lived from a login) is exchanged for a long-lived one, and the page's
 *    token is read from the user's pages: a page token derived from a long-lived user token does
 *    not expire; a short-lived page token is refused (it cannot be made long-lived);
 * 3. the page's name and category are read with the page token;
 * 4. the page subscribes the app to the messaging webhook fields, and the app's callback is
 *    registered when it is not yet (the platform runs its handshake against the service).
 * The stored token is the long-lived page token.
 */
type Json = Record<string, unknown>;

function refuse(field: string, message: string): PlatformFailure {
  return { ok: false, retryable: false, code: 'refused', message, field };
}

/** A failure of a call made with the client's token: refusals name the field, the rest stay as they are. */
function withField(failure: PlatformFailure, field: string): PlatformFailure {
  return failure.retryable ? failure : { ...failure, field };
}

async function pageTokenOf(graph: GraphClient, options: SocialnetChatOptions, pageId: string, token: string): Promise<PlatformResult<string>> {
  if (!options.appId || !options.appSecret) return { ok: true, value: token };
  const appToken = `${options.appId}|${options.appSecret}`;
  const debug = await graph.get('debug_token', { input_token: token }, appToken);
  if (!debug.ok) return debug.retryable ? debug : { ...debug, message: `The token could not be inspected with the configured app: ${debug.message}` };
  const data = (debug.value.data ?? {}) as Json;
  if (data.is_valid !== true) {
    const reason = ((data.error ?? {}) as Json).message;
    return refuse('socialnet_page.access_token', typeof reason === 'string' ? reason : 'The access token is not valid.');
  }
  if (data.type === 'PAGE') {
    if (data.profile_id !== undefined && String(data.profile_id) !== pageId)
      return refuse('socialnet_page.id', `The access token belongs to page ${String(data.profile_id)}, not to page ${pageId}.`);
    if (Number(data.expires_at ?? 0) !== 0) {
      return refuse(
        'socialnet_page.access_token',
        'The page access token is short-lived and cannot be exchanged: give a user access token of a page admin, or a long-lived page access token.',
      );
    }
    return { ok: true, value: token };
  }
  // A user token: exchanged for a long-lived one, then the page's own token is read from its pages.
  const prefix = options.tokenPrefix;
  const exchanged = await graph.get(
    'oauth/access_token',
    { grant_type: `${prefix}_exchange_token`, client_id: options.appId, client_secret: options.appSecret, [`${prefix}_exchange_token`]: token },
    null,
  );
  if (!exchanged.ok) return withField(exchanged, 'socialnet_page.access_token');
  const longLived = exchanged.value.access_token;
  if (typeof longLived !== 'string')
    return { ok: false, retryable: true, code: 'bad_answer', message: 'The platform answered the token exchange without a token.' };
  const page = await findManagedPage(graph, pageId, longLived);
  if (!page.ok) return withField(page, 'socialnet_page.access_token');
  if (!page.value || typeof page.value.access_token !== 'string')
    return refuse('socialnet_page.id', `The user of this access token does not manage page ${pageId}.`);
  return { ok: true, value: page.value.access_token };
}

/** Pages of `me/accounts` read at most, so a platform that pages forever cannot hold a request. */
const MAX_ACCOUNT_PAGES = 100;

/**
 * The page among the user's pages. The list is cursor-paged (25 a page unless `limit` says
 * otherwise): the next page is asked with the `after` cursor while the answer has `paging.next`.
 */
async function findManagedPage(graph: GraphClient, pageId: string, userToken: string): Promise<PlatformResult<Json | null>> {
  let after: string | undefined;
  for (let i = 0; i < MAX_ACCOUNT_PAGES; i++) {
    const accounts = await graph.get('me/accounts', after !== undefined ? { after } : {}, userToken);
    if (!accounts.ok) return accounts;
    const pages = Array.isArray(accounts.value.data) ? (accounts.value.data as Json[]) : [];
    const page = pages.find((p) => String(p.id) === pageId);
    if (page) return { ok: true, value: page };
    const paging = (accounts.value.paging ?? {}) as Json;
    const cursor = ((paging.cursors ?? {}) as Json).after;
    if (typeof paging.next !== 'string' || typeof cursor !== 'string' || pages.length === 0) return { ok: true, value: null };
    after = cursor;
  }
  return { ok: true, value: null };
}

async function ensureAppCallback(graph: GraphClient, options: SocialnetChatOptions): Promise<PlatformResult<null>> {
  if (!options.subscribeApp || !options.appId || !options.appSecret || !options.verifyToken) return { ok: true, value: null };
  const appToken = `${options.appId}|${options.appSecret}`;
  const current = await graph.get(`${options.appId}/subscriptions`, {}, appToken);
  if (!current.ok) return current;
  const subs = Array.isArray(current.value.data) ? (current.value.data as Json[]) : [];
  const ours = subs.find((s) => s.object === 'page' && s.callback_url === options.callbackUrl && s.active !== false);
  const fields = new Set(Array.isArray(ours?.fields) ? (ours.fields as Json[]).map((f) => String(f.name ?? f)) : []);
  if (ours && WEBHOOK_FIELDS.every((f) => fields.has(f))) return { ok: true, value: null };
  const made = await graph.post(
    `${options.appId}/subscriptions`,
    { object: 'page', callback_url: options.callbackUrl, verify_token: options.verifyToken, fields: WEBHOOK_FIELDS.join(',') },
    appToken,
  );
  if (!made.ok) return { ...made, retryable: true, message: `The platform did not accept the service's callback ${options.callbackUrl}: ${made.message}` };
  return { ok: true, value: null };
}

export async function verifyPage(graph: GraphClient, options: SocialnetChatOptions, input: ChannelInput): Promise<PlatformResult<VerifiedChannel>> {
  const pageId = String(input.config.id ?? '');
  const token = input.secrets.access_token ?? '';
  const pageToken = await pageTokenOf(graph, options, pageId, token);
  if (!pageToken.ok) return pageToken;

  const page = await graph.get(pageId, { fields: 'name,category' }, pageToken.value);
  if (!page.ok) {
    if (page.retryable) return page;
    return { ...page, field: page.code === 'disconnected' ? 'socialnet_page.access_token' : 'socialnet_page.id' };
  }
  const subscribed = await graph.post(`${pageId}/subscribed_apps`, {}, pageToken.value, { subscribed_fields: WEBHOOK_FIELDS.join(',') });
  if (!subscribed.ok) return withField(subscribed, 'socialnet_page.access_token');
  const callback = await ensureAppCallback(graph, options);
  if (!callback.ok) return callback;

  // A page connected again with a working token (after the platform disconnected it).
  const config: Json = { id: pageId, page_state: PAGE_CONNECTED };
  if (typeof page.value.name === 'string') config.name = page.value.name;
  if (typeof page.value.category === 'string') config.category = page.value.category;
  return { ok: true, value: { config, secrets: { access_token: pageToken.value } } };
}
