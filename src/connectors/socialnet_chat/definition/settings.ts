import { Type, type TSchema } from '@sinclair/typebox';
import { ApiError, say } from '../../../lib/errors.js';
import { assertValid } from '../../../lib/validation.js';
import { isPlainObject } from '../../../lib/json.js';
import type { CrossCheck, SettingsSpec } from '../../../channel-types/definition.js';
import { strict } from '../../../channel-types/common.js';
import { checkWhitelist, DomainsWhitelist } from '../../../channel-types/domains-whitelist.js';

/** The page's settings: get started button, persistent menu, user input (messaging-api.md, Settings; contract.md §6). */
export const MENU_TITLE_MAX = 30;
export const MENU_ITEMS_MAX = 3;
export const MENU_DEPTH_MAX = 3;
export const PAYLOAD_MAX = 1000;

const Locale = Type.String({ pattern: '^(default|[a-z]{2,3}_[A-Z]{2})$', description: '`default`, or a locale such as en_US.' });

export const GetStartedButton = Type.Object(
  { payload: Type.String({ minLength: 1, maxLength: PAYLOAD_MAX }) },
  { ...strict, description: 'Its payload comes back in the postback event.' },
);

const MenuEntry = Type.Object({ locale: Locale, items: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MENU_ITEMS_MAX }) }, strict);
export const Menu = Type.Array(MenuEntry, {
  minItems: 1,
  description:
    'Per locale; one `default` entry is required. Items: {type: url|postback|menu, title, payload} (menu: {type, title, items}), nested up to 3 levels, at most 3 per menu.',
});

export const UserInputs = Type.Array(Type.Object({ locale: Locale, enabled: Type.Boolean() }, strict), {
  minItems: 1,
  description: 'Per locale; one `default` entry is required. Disabling needs a menu.',
});

function checkLocales(entries: Array<{ locale: string }>, field: string): void {
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (seen.has(entry.locale)) throw ApiError.invalid(`${field}[${i}].locale`, entry.locale, `Locale '${entry.locale}' appears more than once in '${field}'.`);
    seen.add(entry.locale);
  });
  if (!seen.has('default')) throw ApiError.invalid(field, entries, `Property '${field}' needs an entry with locale 'default'.`);
}

const ITEM_TYPES = ['url', 'postback', 'menu'] as const;
const UrlPayload = Type.String({ minLength: 1, maxLength: 2000, format: 'uri' });
const PostbackPayload = Type.String({ minLength: 1, maxLength: PAYLOAD_MAX });
const Title = Type.String({ minLength: 1, maxLength: MENU_TITLE_MAX });

/**
 * The items of a menu as documented: checkMenuItem holds the rules (and their messages), this
 * writes the same shape out, level by level, for the OpenAPI document and the clients made from it.
 */
const UrlItem = Type.Object({ type: Type.Literal('url'), title: Title, payload: UrlPayload }, strict);
const PostbackItem = Type.Object({ type: Type.Literal('postback'), title: Title, payload: PostbackPayload }, strict);
const LinkItems = [UrlItem, PostbackItem];
const itemsOf = (item: TSchema) => Type.Array(item, { minItems: 1, maxItems: MENU_ITEMS_MAX });
/** The items of each level, the top one first: links, and on every level but the last, menus of the next level's items. */
const ItemLevels: TSchema[] = [Type.Union(LinkItems)];
while (ItemLevels.length < MENU_DEPTH_MAX)
  ItemLevels.unshift(Type.Union([...LinkItems, Type.Object({ type: Type.Literal('menu'), title: Title, items: itemsOf(ItemLevels[0]!) }, strict)]));
const DocumentedMenu = Type.Array(Type.Object({ locale: Locale, items: itemsOf(ItemLevels[0]!) }, strict), { minItems: 1, description: Menu.description });

/** Documented shape of the settings object (every value nullable: null means unset). */
const nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
export const SocialnetChatSettings = Type.Object(
  {
    get_started_button: nullable(GetStartedButton),
    menu: nullable(DocumentedMenu),
    user_inputs: nullable(UserInputs),
    domains_whitelist: nullable(DomainsWhitelist),
  },
  { title: 'socialnet_chat settings' },
);

/** One menu item; a `menu` item holds its own items, one level deeper. */
function checkMenuItem(item: unknown, field: string, depth: number): void {
  if (item === null) throw ApiError.invalid(field, null, say.cannotBeNull(field));
  if (!isPlainObject(item)) throw ApiError.invalid(field, item, `Property '${field}' must be an object.`);
  if (!('type' in item)) throw ApiError.invalid(`${field}.type`, null, say.missing(`${field}.type`));
  const type = item.type;
  if (!(ITEM_TYPES as readonly unknown[]).includes(type)) {
    if (type === null) throw ApiError.invalid(`${field}.type`, null, say.cannotBeNull(`${field}.type`));
    throw ApiError.invalid(`${field}.type`, type, say.notAllowedValue(`${field}.type`, type, ITEM_TYPES));
  }
  const allowed = type === 'menu' ? ['type', 'title', 'items'] : ['type', 'title', 'payload'];
  for (const key of Object.keys(item)) {
    if (!allowed.includes(key)) throw ApiError.invalid(`${field}.${key}`, item[key], say.notSupported(`${field}.${key}`));
  }
  if (!('title' in item)) throw ApiError.invalid(`${field}.title`, null, say.missing(`${field}.title`));
  assertValid(Title, item.title, `${field}.title`);
  if (type === 'menu') {
    if (depth >= MENU_DEPTH_MAX) throw ApiError.invalid(`${field}.type`, type, `Menus nest at most ${MENU_DEPTH_MAX} levels deep.`);
    if (!('items' in item)) throw ApiError.invalid(`${field}.items`, null, say.missing(`${field}.items`));
    const items = assertValid(Type.Array(Type.Unknown(), { minItems: 1, maxItems: MENU_ITEMS_MAX }), item.items, `${field}.items`);
    items.forEach((child, i) => checkMenuItem(child, `${field}.items[${i}]`, depth + 1));
    return;
  }
  if (!('payload' in item)) throw ApiError.invalid(`${field}.payload`, null, say.missing(`${field}.payload`));
  assertValid(type === 'url' ? UrlPayload : PostbackPayload, item.payload, `${field}.payload`);
}

function checkMenu(value: unknown, field: string): void {
  const entries = assertValid(Menu, value, field);
  entries.forEach((entry, i) => entry.items.forEach((item, j) => checkMenuItem(item, `${field}[${i}].items[${j}]`, 1)));
  checkLocales(entries, field);
}

function checkUserInputs(value: unknown, field: string): void {
  checkLocales(assertValid(UserInputs, value, field), field);
}

/** A menu needs the get started button; disabled user input needs a menu. */
const crossCheck: CrossCheck = (next, changed) => {
  const has = (name: string) => next[name] !== undefined && next[name] !== null;
  if (has('menu') && !has('get_started_button')) {
    if (changed.has('get_started_button'))
      throw ApiError.invalid('get_started_button', null, `Property 'get_started_button' cannot be deleted while a menu is set.`);
    throw ApiError.invalid('menu', next.menu, `Setting a menu requires get_started_button too.`);
  }
  const inputs = next.user_inputs as Array<{ enabled: boolean }> | null | undefined;
  if (Array.isArray(inputs) && inputs.some((i) => i.enabled === false) && !has('menu')) {
    if (changed.has('menu')) throw ApiError.invalid('menu', null, `Property 'menu' cannot be deleted while user input is disabled.`);
    throw ApiError.invalid('user_inputs', inputs, `Disabling user input requires a menu to be set.`);
  }
};

export const settings: SettingsSpec = {
  names: ['get_started_button', 'menu', 'user_inputs', 'domains_whitelist'],
  check: {
    get_started_button: (value, field) => void assertValid(GetStartedButton, value, field),
    menu: checkMenu,
    user_inputs: checkUserInputs,
    domains_whitelist: checkWhitelist,
  },
  crossCheck,
  appliedOnPlatform: true,
  schema: SocialnetChatSettings,
  components: {
    SocialnetChatMenu: DocumentedMenu,
    ...Object.fromEntries(ItemLevels.map((level, i) => [`SocialnetChatMenuItemLevel${i + 1}`, level])),
    SocialnetChatMenuUrlItem: UrlItem,
    SocialnetChatMenuPostbackItem: PostbackItem,
  },
};
