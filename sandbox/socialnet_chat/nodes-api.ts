import { maybeJson, optString, type JsonRecord } from '../shared/values.js';
import { applyFault, type SnContext } from './context.js';
import { ApiError, paramError, SUBCODE_BY_REASON, unsupportedGet } from './errors.js';
import type { SnPage, SnToken, SnUser } from './state.js';
import { expiresAtSeconds, LONG_LIVED_SECONDS, mintToken, SHORT_LIVED_MS, type Caller } from './tokens.js';
import { WEBHOOK_FIELDS } from './webhooks.js';

// API nodes and edges besides sending: page / user lookups, tokens, subscriptions.

const PAGE_FIELDS = ['id', 'name', 'category', 'access_token', 'category_list', 'tasks'];
const USER_FIELDS = ['id', 'first_name', 'last_name', 'name', 'profile_pic', 'locale', 'timezone', 'gender'];
/** User-profile fields an app gets only after the platform's review of it. */
const REVIEWED_USER_FIELDS = ['locale', 'timezone', 'gender'];
/** Pages per answer of a user's `accounts` edge when the call gives no `limit`. */
const ACCOUNTS_PAGE_SIZE = 25;

function requestedFields(params: Record<string, unknown>, defaults: string[]): string[] {
  const raw = optString(params.fields);
  if (raw === undefined || raw.trim() === '') return defaults;
  return raw
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
}

function nonexistingField(field: string, nodeType: string): ApiError {
  return new ApiError(100, `(#100) Tried accessing nonexisting field (${field}) on node type (${nodeType})`);
}

function pageView(ctx: SnContext, page: SnPage, fields: string[], caller: Caller): JsonRecord {
  const out: JsonRecord = {};
  for (const f of fields) {
    if (!PAGE_FIELDS.includes(f)) throw nonexistingField(f, 'Page');
    if (f === 'access_token') {
      if (caller.kind === 'page' && caller.page.id === page.id) out.access_token = caller.token.token;
      else if (caller.kind === 'user' && page.adminId === caller.token.adminId) out.access_token = pageTokenFor(ctx, page, caller.token).token;
      continue;
    }
    if (f === 'category_list') out.category_list = [{ id: '2700', name: page.category }];
    else if (f === 'tasks') out.tasks = ['ANALYZE', 'ADVERTISE', 'MESSAGING', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'];
    else if (f !== 'id') out[f] = page[f as 'name' | 'category'];
  }
  out.id = page.id;
  return out;
}

export function profilePicUrl(ctx: SnContext, origin: string, user: SnUser): string | null {
  const media = ctx.state.media.get(user.profilePicMediaId);
  return media ? origin + ctx.state.media.pathOf(media) : null;
}

function userView(ctx: SnContext, user: SnUser, fields: string[], origin: string): JsonRecord {
  const out: JsonRecord = {};
  for (const f of fields) if (!USER_FIELDS.includes(f)) throw nonexistingField(f, 'User');
  // Without the app review, one such field fails the whole call (no partial answer).
  if (ctx.state.app.profileFieldsReviewed !== true && fields.some((f) => REVIEWED_USER_FIELDS.includes(f))) {
    throw new ApiError(100, '(#100) Insufficient permission to access user profile', 2018247);
  }
  for (const f of fields) {
    switch (f) {
      case 'first_name':
        out.first_name = user.firstName;
        break;
      case 'last_name':
        out.last_name = user.lastName;
        break;
      case 'name':
        out.name = `${user.firstName} ${user.lastName}`.trim();
        break;
      case 'profile_pic':
        out.profile_pic = profilePicUrl(ctx, origin, user);
        break;
      case 'locale':
        out.locale = user.locale;
        break;
      case 'timezone':
        out.timezone = user.timezone;
        break;
      case 'gender':
        out.gender = user.gender;
        break;
    }
  }
  out.id = user.psid;
  return out;
}

/** A page token derived from a user token: never expires when the user token is long-lived. */
function pageTokenFor(ctx: SnContext, page: SnPage, userToken: SnToken): SnToken {
  return mintToken(ctx.state, 'page', userToken.adminId, page.id, userToken.longLived ? null : SHORT_LIVED_MS);
}

export async function handleNode(ctx: SnContext, caller: Caller, node: string, params: Record<string, unknown>, origin: string): Promise<JsonRecord> {
  const { state } = ctx;
  const id = node === 'me' ? (caller.kind === 'page' ? caller.page.id : caller.kind === 'user' ? caller.token.adminId : node) : node;

  const page = state.pages.get(id);
  if (page) {
    await applyFault(ctx, 'node');
    return pageView(ctx, page, requestedFields(params, ['name']), caller);
  }
  const user = state.users.get(id);
  if (user) {
    await applyFault(ctx, 'user_profile');
    // Only the page the user talks to may read the profile, once the user started the conversation.
    if (caller.kind !== 'page' || caller.page.id !== user.pageId || !user.started) throw unsupportedGet(id);
    return userView(ctx, user, requestedFields(params, ['first_name', 'last_name', 'profile_pic']), origin);
  }
  const admin = state.admins.get(id);
  if (admin && caller.kind === 'user' && caller.token.adminId === admin.id) {
    return { name: admin.name, id: admin.id };
  }
  throw unsupportedGet(id);
}

function cursorOf(index: number): string {
  return Buffer.from(`page-index:${index}`).toString('base64url');
}

function indexOfCursor(cursor: string): number {
  const match = /^page-index:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw paramError('Invalid cursor');
  return Number(match[1]);
}

/**
 * A user's pages, cursor-paged like every list of the platform: `limit` (default 25), `after` /
 * `before` cursors; `paging.next` (the full URL of the next page) only while more follow.
 */
export async function handleAccounts(ctx: SnContext, caller: Caller, node: string, params: Record<string, unknown>, selfUrl: string): Promise<JsonRecord> {
  await applyFault(ctx, 'accounts');
  if (caller.kind !== 'user') throw new ApiError(100, '(#100) This endpoint requires a user access token');
  if (node !== 'me' && node !== caller.token.adminId) throw unsupportedGet(node);
  const admin = ctx.state.admins.get(caller.token.adminId);
  const all: JsonRecord[] = [];
  for (const pageId of admin?.pageIds ?? []) {
    const page = ctx.state.pages.get(pageId);
    if (!page || !page.connected) continue;
    all.push({
      access_token: pageTokenFor(ctx, page, caller.token).token,
      category: page.category,
      category_list: [{ id: '2700', name: page.category }],
      name: page.name,
      id: page.id,
      tasks: ['ANALYZE', 'ADVERTISE', 'MESSAGING', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'],
    });
  }
  const limitParam = optString(params.limit);
  const limit = limitParam === undefined ? ACCOUNTS_PAGE_SIZE : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 1) throw paramError('Param limit must be a positive integer');
  const after = optString(params.after);
  const before = optString(params.before);
  const start = after !== undefined ? indexOfCursor(after) + 1 : before !== undefined ? Math.max(0, indexOfCursor(before) - limit) : 0;
  const data = all.slice(start, start + limit);
  if (data.length === 0) return { data };
  const paging: JsonRecord = { cursors: { before: cursorOf(start), after: cursorOf(start + data.length - 1) } };
  if (start + data.length < all.length) {
    const next = new URL(selfUrl);
    next.searchParams.delete('before');
    next.searchParams.set('limit', String(limit));
    next.searchParams.set('after', cursorOf(start + data.length - 1));
    paging.next = next.toString();
  }
  if (start > 0) {
    const previous = new URL(selfUrl);
    previous.searchParams.delete('after');
    previous.searchParams.set('limit', String(limit));
    previous.searchParams.set('before', cursorOf(start));
    paging.previous = previous.toString();
  }
  return { data, paging };
}

export async function handleOAuth(ctx: SnContext, params: Record<string, unknown>): Promise<JsonRecord> {
  await applyFault(ctx, 'oauth');
  const { app } = ctx.state;
  const pf = ctx.options.platformAbbreviation;
  const grantType = optString(params.grant_type);
  const clientId = optString(params.client_id);
  const clientSecret = optString(params.client_secret);
  if (clientId === undefined) throw paramError('Missing client_id parameter.');
  if (clientId !== app.id) throw new ApiError(101, 'Error validating application. Invalid application ID.');
  if (clientSecret !== app.secret) throw new ApiError(1, 'Error validating client secret.');

  if (grantType === 'client_credentials') {
    return { access_token: `${app.id}|${app.secret}`, token_type: 'bearer' };
  }
  if (grantType !== `${pf}_exchange_token`) {
    throw paramError(`Param grant_type must be one of {${pf}_exchange_token, client_credentials} - got "${grantType ?? ''}"`);
  }
  const input = optString(params[`${pf}_exchange_token`]);
  if (input === undefined || input === '') throw paramError(`Missing ${pf}_exchange_token parameter.`);
  const token = ctx.state.tokens.get(input);
  if (!token || token.kind !== 'user') throw new ApiError(190, 'Invalid OAuth access token.');
  const now = ctx.state.clock.now();
  if (token.invalidReason || (token.expiresAt !== null && now >= token.expiresAt)) {
    throw new ApiError(190, 'Error validating access token: Session has expired or is invalid.', SUBCODE_BY_REASON[token.invalidReason ?? 'expired']);
  }
  const long = mintToken(ctx.state, 'user', token.adminId, null, LONG_LIVED_SECONDS * 1000);
  return { access_token: long.token, token_type: 'bearer', expires_in: LONG_LIVED_SECONDS };
}

export async function handleDebugToken(ctx: SnContext, caller: Caller, params: Record<string, unknown>): Promise<JsonRecord> {
  await applyFault(ctx, 'debug_token');
  const { app } = ctx.state;
  if (caller.kind !== 'app' && caller.kind !== 'user') {
    throw new ApiError(100, '(#100) You must provide an app access token, or a user access token that is an owner or developer of the app');
  }
  const input = optString(params.input_token);
  if (input === undefined || input === '') throw paramError('The parameter input_token is required');
  const token = ctx.state.tokens.get(input);
  if (!token) {
    return { data: { error: { code: 190, message: 'Invalid OAuth access token.' }, is_valid: false, scopes: [] } };
  }
  const now = ctx.state.clock.now();
  const page = token.pageId === null ? undefined : ctx.state.pages.get(token.pageId);
  const reason =
    token.invalidReason ??
    (token.expiresAt !== null && now >= token.expiresAt ? 'expired' : null) ??
    (token.kind === 'page' && page && !page.connected ? (page.disconnectReason ?? 'password_changed') : null);
  const data: JsonRecord = {
    app_id: app.id,
    type: token.kind === 'page' ? 'PAGE' : 'USER',
    application: app.name,
    data_access_expires_at: Math.floor(now / 1000) + 90 * 24 * 3600,
    expires_at: expiresAtSeconds(token),
    is_valid: reason === null,
    issued_at: Math.floor(token.issuedAt / 1000),
    scopes: token.scopes,
    granular_scopes: token.scopes.map((scope) => ({ scope })),
    user_id: token.adminId,
  };
  if (token.pageId !== null) data.profile_id = token.pageId;
  if (reason !== null) data.error = { code: 190, message: 'Error validating access token', subcode: SUBCODE_BY_REASON[reason] };
  return { data };
}

function fieldNames(raw: unknown): string[] | undefined {
  const value = maybeJson(raw);
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map((v) => String(v));
  return String(value)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function checkFields(fields: string[], param: string): void {
  fields.forEach((f, i) => {
    if (!(WEBHOOK_FIELDS as readonly string[]).includes(f)) {
      throw paramError(`Param ${param}[${i}] must be one of {${WEBHOOK_FIELDS.join(', ')}} - got "${f}"`);
    }
  });
}

export async function handleSubscribedApps(ctx: SnContext, method: string, caller: Caller, node: string, params: Record<string, unknown>): Promise<JsonRecord> {
  if (caller.kind !== 'page' || (node !== 'me' && node !== caller.page.id)) {
    throw new ApiError(210, '(#210) A page access token is required to request this resource.');
  }
  await applyFault(ctx, 'subscribed_apps');
  const page = caller.page;
  const { app } = ctx.state;
  if (method === 'GET') {
    if (page.subscribedFields.length === 0) return { data: [] };
    return { data: [{ link: 'https://sandbox.invalid/app', name: app.name, id: app.id, subscribed_fields: page.subscribedFields }] };
  }
  if (method === 'DELETE') {
    page.subscribedFields = [];
    return { success: true };
  }
  const fields = fieldNames(params.subscribed_fields);
  if (fields === undefined || fields.length === 0) throw paramError('The parameter subscribed_fields is required');
  checkFields(fields, 'subscribed_fields');
  page.subscribedFields = [...new Set(fields)];
  return { success: true };
}

export async function handleAppSubscriptions(
  ctx: SnContext,
  method: string,
  caller: Caller,
  node: string,
  params: Record<string, unknown>,
): Promise<JsonRecord> {
  const { app } = ctx.state;
  if (caller.kind !== 'app') throw new ApiError(15, '(#15) This method must be called with an app access_token.');
  if (node !== app.id) throw unsupportedGet(node);
  await applyFault(ctx, 'subscriptions');
  if (method === 'GET') {
    const sub = app.subscription;
    if (!sub) return { data: [] };
    return {
      data: [{ object: 'page', callback_url: sub.callbackUrl, active: sub.active, fields: sub.fields.map((name) => ({ name, version: 'v25.0' })) }],
    };
  }
  if (method === 'DELETE') {
    app.subscription = null;
    return { success: true };
  }
  const object = optString(params.object);
  if (object !== 'page') throw paramError(`Param object must be one of {page} - got "${object ?? ''}"`);
  const callbackUrl = optString(params.callback_url);
  const verifyToken = optString(params.verify_token) ?? '';
  if (callbackUrl === undefined) throw paramError('The parameter callback_url is required');
  const fields = fieldNames(params.fields) ?? [];
  checkFields(fields, 'fields');
  await subscribeApp(ctx, callbackUrl, verifyToken, fields);
  return { success: true };
}

/** Runs the verification handshake and, when it passes, stores the app subscription. */
export async function subscribeApp(ctx: SnContext, callbackUrl: string, verifyToken: string, fields: string[]): Promise<void> {
  try {
    new URL(callbackUrl);
  } catch {
    throw paramError('Param callback_url must be a valid URL');
  }
  const result = await ctx.webhooks.verify(callbackUrl, verifyToken);
  if (!result.ok) {
    const r = result.record;
    const detail =
      r.status === null
        ? `Couldn't connect to server (${r.error ?? 'no response'})`
        : `HTTP Status Code = ${r.status}; Response does not match challenge, expected value="${result.challenge}", received="${r.body.slice(0, 100)}"`;
    throw new ApiError(2200, `(#2200) Callback verification failed with the following errors: ${detail}`, undefined, 'OAuthException', 400, {
      handshake_delivery_id: r.id,
    });
  }
  ctx.state.app.subscription = {
    callbackUrl,
    verifyToken,
    fields: fields.length > 0 ? [...new Set(fields)] : [...WEBHOOK_FIELDS],
    active: true,
  };
}
