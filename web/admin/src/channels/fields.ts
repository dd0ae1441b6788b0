// The fields of each channel type's own object, as Create and Update Channel take them, from the
// server's description of the type. Paths are the request's JSON paths, which are also the
// `field` of the API's 422 answers.
import type { ChannelTypeInfo, FieldInfo } from '../types';

/** A field as the forms show it: a credential is a `secret` field (write-only, a password input). */
export type FieldSpec = Omit<FieldInfo, 'kind'> & { kind: FieldInfo['kind'] | 'secret' };

export function fieldSpecs(info: ChannelTypeInfo): FieldSpec[] {
  return info.fields.map((field) => ({ ...field, kind: field.secret && field.kind === 'text' ? 'secret' : field.kind }));
}

/** The value at a dotted path of an object. */
export function getPath(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** Sets a dotted path, creating the objects on the way (a list where the next key is an index: `phones.0.number`). */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = target;
  keys.slice(0, -1).forEach((key, i) => {
    const next = at[key];
    if (next === null || typeof next !== 'object') at[key] = /^\d+$/.test(keys[i + 1] ?? '') ? [] : {};
    at = at[key] as Record<string, unknown>;
  });
  at[keys[keys.length - 1] as string] = value;
}
