import type { EditItem, EditLocale } from './menu-model';
import { fieldOf } from './menu-model';

/**
 * The specification's and the service's rules for socialnet_chat settings, checked while the user
 * edits so problems show before saving; the API checks them again and its 422 `field` is shown the
 * same way. Keys of the result are the API's field paths.
 */
export const MENU_ITEMS_MAX = 3;
export const MENU_DEPTH_MAX = 3;
export const MENU_TITLE_MAX = 30;
export const PAYLOAD_MAX = 1000;
export const URL_MAX = 2000;
export const LOCALE_PATTERN = /^(default|[a-z]{2,3}_[A-Z]{2})$/;

export type Problems = Record<string, string>;

export function urlProblem(value: string): string | null {
  if (value.length > URL_MAX) return `A URL is at most ${URL_MAX} characters.`;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Use an http:// or https:// URL.';
    return null;
  } catch {
    return 'Enter an absolute URL, e.g. https://shop.example.com/help.';
  }
}

function checkItems(items: EditItem[], locale: number, trail: number[], depth: number, out: Problems): void {
  const listField = trail.length === 0 ? `menu[${locale}].items` : `${fieldOf({ locale, items: trail })}.items`;
  if (items.length === 0) out[listField] = trail.length === 0 ? 'Add at least one item.' : 'A submenu needs at least one item.';
  if (items.length > MENU_ITEMS_MAX) out[listField] = `At most ${MENU_ITEMS_MAX} items per menu (now ${items.length}).`;
  items.forEach((item, i) => {
    const path = { locale, items: [...trail, i] };
    const field = fieldOf(path);
    if (item.title.trim().length === 0) out[`${field}.title`] = 'Enter a title.';
    else if (item.title.length > MENU_TITLE_MAX) out[`${field}.title`] = `At most ${MENU_TITLE_MAX} characters (now ${item.title.length}).`;
    if (item.type === 'menu') {
      if (depth >= MENU_DEPTH_MAX) out[`${field}.type`] = `Menus nest at most ${MENU_DEPTH_MAX} levels deep.`;
      checkItems(item.items, locale, path.items, depth + 1, out);
    } else if (item.type === 'url') {
      const problem = item.payload === '' ? 'Enter the URL the item opens.' : urlProblem(item.payload);
      if (problem) out[`${field}.payload`] = problem;
    } else if (item.payload === '') {
      out[`${field}.payload`] = 'Enter the payload sent back in the postback event.';
    } else if (item.payload.length > PAYLOAD_MAX) {
      out[`${field}.payload`] = `At most ${PAYLOAD_MAX} characters (now ${item.payload.length}).`;
    }
  });
}

function checkLocales(entries: Array<{ locale: string }>, field: string, out: Problems): void {
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (!LOCALE_PATTERN.test(entry.locale)) out[`${field}[${i}].locale`] = 'Use default or a locale such as en_US.';
    else if (seen.has(entry.locale)) out[`${field}[${i}].locale`] = `Locale ${entry.locale} appears more than once.`;
    seen.add(entry.locale);
  });
  if (entries.length > 0 && !seen.has('default')) out[field] = 'An entry with locale default is required.';
}

export interface SocialnetDraft {
  getStarted: string | null;
  menu: EditLocale[];
  userInputs: Array<{ key: string; locale: string; enabled: boolean }>;
  whitelist: string[];
}

export function socialnetProblems(draft: SocialnetDraft): Problems {
  const out: Problems = {};
  if (draft.getStarted !== null) {
    if (draft.getStarted === '') out['get_started_button.payload'] = 'Enter the payload of the get started button.';
    else if (draft.getStarted.length > PAYLOAD_MAX) out['get_started_button.payload'] = `At most ${PAYLOAD_MAX} characters.`;
  }
  draft.menu.forEach((entry, i) => checkItems(entry.items, i, [], 1, out));
  checkLocales(draft.menu, 'menu', out);
  if (draft.menu.length > 0 && draft.getStarted === null) out.menu = out.menu ?? 'Setting a menu requires the get started button too.';
  checkLocales(draft.userInputs, 'user_inputs', out);
  if (draft.userInputs.some((u) => !u.enabled) && draft.menu.length === 0) out.user_inputs = 'Disabling user input requires a menu to be set.';
  Object.assign(out, whitelistProblems(draft.whitelist, 'domains_whitelist'));
  return out;
}

const ORIGIN = /^(https?):\/\/((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?$/i;
export const WHITELIST_MAX = 100;

/** A whitelist entry is an origin: protocol and host, the port only when not standard. */
export function originProblem(entry: string): string | null {
  const m = ORIGIN.exec(entry);
  if (!m) return 'Must be an origin: protocol and domain, and the port when it is not standard, e.g. https://shop.example.com or http://localhost:8080.';
  const [, protocol, , port] = m;
  if (port !== undefined) {
    const n = Number(port);
    if (n < 1 || n > 65535) return 'The port must be within 1..65535.';
    if ((protocol?.toLowerCase() === 'http' && n === 80) || (protocol?.toLowerCase() === 'https' && n === 443)) return `Leave out the standard port ${n}.`;
  }
  return null;
}

export function whitelistProblems(list: string[], field: string): Problems {
  const out: Problems = {};
  if (list.length > WHITELIST_MAX) out[field] = `At most ${WHITELIST_MAX} entries.`;
  list.forEach((entry, i) => {
    const problem = originProblem(entry);
    if (problem) out[`${field}[${i}]`] = problem;
  });
  return out;
}
