import type { MenuItem, SocialnetChatSettings } from '../types';

/**
 * The persistent menu as the editor holds it: every item has a key that survives reordering, and
 * every field is a string so half-typed values can be shown and checked.
 */
export type ItemType = 'postback' | 'url' | 'menu';

export interface EditItem {
  key: string;
  type: ItemType;
  title: string;
  payload: string;
  items: EditItem[];
}

export interface EditLocale {
  key: string;
  locale: string;
  items: EditItem[];
}

let counter = 0;
export function newKey(): string {
  counter += 1;
  return `k${counter}`;
}

export function newItem(type: ItemType = 'postback'): EditItem {
  return { key: newKey(), type, title: '', payload: '', items: [] };
}

function fromItem(item: MenuItem): EditItem {
  if (item.type === 'menu') return { key: newKey(), type: 'menu', title: item.title, payload: '', items: item.items.map(fromItem) };
  return { key: newKey(), type: item.type, title: item.title, payload: item.payload, items: [] };
}

export function menuFromApi(menu: SocialnetChatSettings['menu']): EditLocale[] {
  return (menu ?? []).map((entry) => ({ key: newKey(), locale: entry.locale, items: entry.items.map(fromItem) }));
}

type SubItems = Extract<MenuItem, { type: 'menu' }>['items'];

function toItem(item: EditItem): MenuItem {
  // The document types each level of the menu apart; the editor's rules (menu-rules.ts) keep the depth.
  if (item.type === 'menu') return { type: 'menu', title: item.title, items: item.items.map(toItem) as SubItems };
  return { type: item.type, title: item.title, payload: item.payload };
}

/** The API's value: null deletes the menu. */
export function menuToApi(locales: EditLocale[]): SocialnetChatSettings['menu'] {
  if (locales.length === 0) return null;
  return locales.map((l) => ({ locale: l.locale, items: l.items.map(toItem) }));
}

/** A path into the tree: the locale's index, then item indexes down the nesting. */
export interface ItemPath {
  locale: number;
  items: number[];
}

/** The field name the API uses for an item, e.g. menu[0].items[1].items[0]. */
export function fieldOf(path: ItemPath): string {
  return `menu[${path.locale}]` + path.items.map((i) => `.items[${i}]`).join('');
}

type ListFn = (items: EditItem[]) => EditItem[];

/** Applies `fn` to the list that holds the item at `path` (the parent's list). */
export function updateList(locales: EditLocale[], path: ItemPath, parentDepth: number, fn: ListFn): EditLocale[] {
  const walk = (items: EditItem[], rest: number[]): EditItem[] => {
    if (rest.length === 0) return fn(items);
    const [head, ...tail] = rest as [number, ...number[]];
    return items.map((item, i) => (i === head ? { ...item, items: walk(item.items, tail) } : item));
  };
  return locales.map((l, i) => (i === path.locale ? { ...l, items: walk(l.items, path.items.slice(0, parentDepth)) } : l));
}

/** Replaces the item at `path`. */
export function updateItem(locales: EditLocale[], path: ItemPath, fn: (item: EditItem) => EditItem): EditLocale[] {
  const depth = path.items.length - 1;
  const index = path.items[depth] ?? 0;
  return updateList(locales, path, depth, (items) => items.map((item, i) => (i === index ? fn(item) : item)));
}

export function removeItem(locales: EditLocale[], path: ItemPath): EditLocale[] {
  const depth = path.items.length - 1;
  const index = path.items[depth] ?? 0;
  return updateList(locales, path, depth, (items) => items.filter((_, i) => i !== index));
}

/** Moves an item one place up (-1) or down (+1) among its siblings. */
export function moveItem(locales: EditLocale[], path: ItemPath, by: -1 | 1): EditLocale[] {
  const depth = path.items.length - 1;
  const index = path.items[depth] ?? 0;
  return updateList(locales, path, depth, (items) => {
    const to = index + by;
    if (to < 0 || to >= items.length) return items;
    const next = items.slice();
    const [moved] = next.splice(index, 1);
    if (moved) next.splice(to, 0, moved);
    return next;
  });
}

/**
 * Nests an item into the submenu just above it (indent), or lifts it out of its submenu to follow
 * its parent (outdent).
 */
export function indentItem(locales: EditLocale[], path: ItemPath): EditLocale[] {
  const depth = path.items.length - 1;
  const index = path.items[depth] ?? 0;
  if (index === 0) return locales;
  return updateList(locales, path, depth, (items) => {
    const above = items[index - 1];
    const item = items[index];
    if (!above || !item || above.type !== 'menu') return items;
    const next = items.filter((_, i) => i !== index);
    next[index - 1] = { ...above, items: [...above.items, item] };
    return next;
  });
}

export function outdentItem(locales: EditLocale[], path: ItemPath): EditLocale[] {
  if (path.items.length < 2) return locales;
  const parentDepth = path.items.length - 2;
  const parentIndex = path.items[parentDepth] ?? 0;
  const index = path.items[path.items.length - 1] ?? 0;
  return updateList(locales, path, parentDepth, (items) => {
    const parent = items[parentIndex];
    const item = parent?.items[index];
    if (!parent || !item) return items;
    const next = items.slice();
    next[parentIndex] = { ...parent, items: parent.items.filter((_, i) => i !== index) };
    next.splice(parentIndex + 1, 0, item);
    return next;
  });
}
