import { asArray, charLength, isRecord, maybeJson, optString, type JsonRecord } from '../shared/values.js';
import { applyFault, type SnContext } from './context.js';
import { paramError } from './errors.js';
import { requirePageNode, type Caller } from './tokens.js';
import { validateButtons } from './send-validation.js';

// GET / POST / DELETE /{version}/me/<product>_profile: the page's chat settings.

export const PROFILE_FIELDS = [
  'account_linking_url',
  'persistent_menu',
  'get_started',
  'greeting',
  'ice_breakers',
  'whitelisted_domains',
  'payment_settings',
  'target_audience',
  'home_url',
] as const;

const MAX_MENU_ITEMS = 20;
const MAX_DOMAINS = 50;

function requiresOneOf(): Error {
  return paramError(`Requires one of the params: ${PROFILE_FIELDS.join(',')}`);
}

function validateGetStarted(value: unknown): void {
  if (!isRecord(value)) throw paramError('param get_started must be an object');
  const payload = optString(value.payload);
  if (payload === undefined || payload === '') throw paramError('param get_started[payload] must be a non-empty UTF-8 encoded string');
  if (charLength(payload) > 1000) throw paramError('Length of param get_started[payload] must be less than or equal to 1000');
}

function validateMenu(value: unknown, getStartedSet: boolean): void {
  const menus = asArray(value);
  if (!menus) throw paramError('param persistent_menu must be an array');
  if (!getStartedSet) throw paramError('You must set a Get Started button if you also wish to use persistent menu.');
  if (!menus.some((m) => isRecord(m) && m.locale === 'default')) {
    throw paramError('persistent_menu must contain an entry with locale "default"');
  }
  menus.forEach((m, i) => {
    if (!isRecord(m)) throw paramError(`param persistent_menu[${i}] must be an object`);
    if (optString(m.locale) === undefined) throw paramError(`param persistent_menu[${i}][locale] is required`);
    const disabled = m.composer_input_disabled === true;
    const items = m.call_to_actions;
    if (items === undefined) {
      if (!disabled) return;
      throw paramError(`param persistent_menu[${i}][call_to_actions] is required when composer_input_disabled is true`);
    }
    validateButtons(items, `persistent_menu[${i}][call_to_actions]`, 1, MAX_MENU_ITEMS);
  });
}

function validateDomains(value: unknown): void {
  const list = asArray(value);
  if (!list) throw paramError('param whitelisted_domains must be an array');
  if (list.length > MAX_DOMAINS) throw paramError(`param whitelisted_domains must have at most ${MAX_DOMAINS} elements`);
  list.forEach((d, i) => {
    let ok = false;
    if (typeof d === 'string') {
      try {
        ok = new URL(d).protocol === 'https:';
      } catch {
        ok = false;
      }
    }
    if (!ok) throw paramError(`whitelisted_domains[${i}] should represent a valid URL`);
  });
}

function fieldList(raw: unknown): string[] {
  const value = maybeJson(raw);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  return [];
}

export async function handleProfile(ctx: SnContext, method: string, caller: Caller, node: string, params: Record<string, unknown>): Promise<JsonRecord> {
  const { page } = requirePageNode(caller, node);
  await applyFault(ctx, 'profile');
  const now = ctx.state.clock.now();

  if (method === 'GET') {
    const wanted = fieldList(params.fields);
    const names = wanted.length > 0 ? wanted : Object.keys(page.profile);
    const out: JsonRecord = {};
    for (const name of names) {
      if (!(PROFILE_FIELDS as readonly string[]).includes(name)) {
        throw paramError(`param fields[${wanted.indexOf(name)}] must be one of {${PROFILE_FIELDS.join(', ')}} - got "${name}"`);
      }
      if (page.profile[name] !== undefined) out[name] = page.profile[name];
    }
    return { data: Object.keys(out).length > 0 ? [out] : [] };
  }

  if (method === 'DELETE') {
    const fields = fieldList(params.fields);
    if (fields.length === 0) throw paramError('The parameter fields is required');
    fields.forEach((f, i) => {
      if (!(PROFILE_FIELDS as readonly string[]).includes(f)) {
        throw paramError(`param fields[${i}] must be one of {${PROFILE_FIELDS.join(', ')}} - got "${f}"`);
      }
    });
    if (fields.includes('get_started') && page.profile.persistent_menu !== undefined && !fields.includes('persistent_menu')) {
      throw paramError('You must delete the persistent menu before deleting the Get Started button.');
    }
    for (const f of fields) delete page.profile[f];
    page.profileChanges.push({ at: now, method: 'DELETE', body: { fields } });
    return { result: 'success' };
  }

  // POST: overwrite only the properties present.
  const update: JsonRecord = {};
  for (const name of PROFILE_FIELDS) {
    if (params[name] !== undefined) update[name] = maybeJson(params[name]);
  }
  if (Object.keys(update).length === 0) throw requiresOneOf();
  if (update.get_started !== undefined) validateGetStarted(update.get_started);
  if (update.persistent_menu !== undefined) {
    validateMenu(update.persistent_menu, update.get_started !== undefined || page.profile.get_started !== undefined);
  }
  if (update.whitelisted_domains !== undefined) validateDomains(update.whitelisted_domains);
  if (update.greeting !== undefined) {
    const greetings = asArray(update.greeting);
    if (!greetings) throw paramError('param greeting must be an array');
    greetings.forEach((g, i) => {
      const text = isRecord(g) ? optString(g.text) : undefined;
      if (text === undefined || charLength(text) > 160) throw paramError(`param greeting[${i}][text] must be a string of at most 160 characters`);
    });
  }
  Object.assign(page.profile, update);
  page.profileChanges.push({ at: now, method: 'POST', body: update });
  return { result: 'success' };
}
