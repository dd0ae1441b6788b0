import type { PlatformResult } from '../connector.js';

/**
 * Channel settings -> the platform's page profile API, as pure functions.
 *
 * - `get_started_button {payload}` -> `get_started {payload}`;
 * - `menu` + `user_inputs` -> `persistent_menu`: one entry per locale, `composer_input_disabled`
 *   from the locale's user_inputs entry (or the `default` one). The platform removed nested menus
 *   in API v8.0 (menus are shown flat, up to 20 items), so a `menu` item is replaced by its own
 *   items, in order;
 * - `domains_whitelist` -> `whitelisted_domains`;
 * - a setting set to null -> the property deleted (DELETE `{fields}`).
 */
type Json = Record<string, unknown>;

interface MenuItem {
  type: 'url' | 'postback' | 'menu';
  title: string;
  payload?: string;
  items?: MenuItem[];
}
interface MenuEntry {
  locale: string;
  items: MenuItem[];
}
interface UserInput {
  locale: string;
  enabled: boolean;
}

/** The platform shows at most this many menu items per locale. */
export const MAX_FLAT_MENU_ITEMS = 20;

function flatten(items: MenuItem[]): Json[] {
  const out: Json[] = [];
  for (const item of items) {
    if (item.type === 'menu') out.push(...flatten(item.items ?? []));
    else if (item.type === 'url') out.push({ type: 'web_url', title: item.title, url: item.payload });
    else out.push({ type: 'postback', title: item.title, payload: item.payload });
  }
  return out;
}

function inputDisabled(inputs: UserInput[] | null, locale: string): boolean {
  if (!inputs) return false;
  const entry = inputs.find((i) => i.locale === locale) ?? inputs.find((i) => i.locale === 'default');
  return entry ? !entry.enabled : false;
}

export function renderPersistentMenu(menu: MenuEntry[], inputs: UserInput[] | null): PlatformResult<Json[]> {
  const byLocale = new Map(menu.map((entry) => [entry.locale, flatten(entry.items)]));
  const fallback = byLocale.get('default') ?? [];
  // Locales that only set user input get the default menu, so their input setting has a place.
  for (const input of inputs ?? []) if (!byLocale.has(input.locale)) byLocale.set(input.locale, fallback);
  const out: Json[] = [];
  for (const [locale, items] of byLocale) {
    if (items.length > MAX_FLAT_MENU_ITEMS) {
      return {
        ok: false,
        retryable: false,
        code: 'menu_too_large',
        message: `The platform shows at most ${MAX_FLAT_MENU_ITEMS} menu items per locale and no nested menus; the '${locale}' menu has ${items.length} items once flattened.`,
      };
    }
    out.push({ locale, composer_input_disabled: inputDisabled(inputs, locale), call_to_actions: items });
  }
  return { ok: true, value: out };
}

export interface ProfileChange {
  /** Properties to set (POST), or null when none. */
  set: Json | null;
  /** Properties to delete (DELETE), empty when none. */
  remove: string[];
}

/** What the change of the named settings does to the page profile. `settings` is the whole new settings object. */
export function profileChange(settings: Record<string, unknown>, changed: readonly string[]): PlatformResult<ProfileChange> {
  const set: Json = {};
  const remove: string[] = [];
  const has = (name: string) => changed.includes(name);
  if (has('get_started_button')) {
    const button = settings.get_started_button as { payload: string } | null;
    if (button) set.get_started = { payload: button.payload };
    else remove.push('get_started');
  }
  if (has('menu') || has('user_inputs')) {
    const menu = settings.menu as MenuEntry[] | null;
    if (menu) {
      const rendered = renderPersistentMenu(menu, (settings.user_inputs as UserInput[] | null) ?? null);
      if (!rendered.ok) return rendered;
      set.persistent_menu = rendered.value;
    } else if (has('menu')) {
      remove.push('persistent_menu');
    }
  }
  if (has('domains_whitelist')) {
    const domains = settings.domains_whitelist as string[] | null;
    if (domains) set.whitelisted_domains = domains;
    else remove.push('whitelisted_domains');
  }
  return { ok: true, value: { set: Object.keys(set).length > 0 ? set : null, remove } };
}
