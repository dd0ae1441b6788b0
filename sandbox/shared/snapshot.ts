import { createPrivateKey, createPublicKey, KeyObject } from 'node:crypto';

// What a stand-in keeps across restarts (its accounts, credentials and registrations) as JSON.
// State holds Maps, Sets, 64-bit counters and key objects; they are written as one-key tagged
// objects ({"$map": [[k, v], ...]}, {"$set": [...]}, {"$bigint": "..."}, {"$key": {...}}).

export interface PersistSpec<S> {
  /** Top-level state fields kept across restarts: accounts and credentials, not traffic. */
  keys: readonly (keyof S & string)[];
  /** Repairs what points at state that is not kept (served media), after a restore. */
  afterRestore?(state: S): void;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function encode(value: unknown): Json {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (value instanceof Map) return { $map: [...value.entries()].map(([k, v]) => [encode(k), encode(v)]) };
  if (value instanceof Set) return { $set: [...value].map(encode) };
  if (value instanceof KeyObject) {
    const pem = value.type === 'private' ? value.export({ type: 'pkcs8', format: 'pem' }) : value.export({ type: 'spki', format: 'pem' });
    return { $key: { type: value.type, pem: String(pem) } };
  }
  if (Array.isArray(value)) return value.map(encode);
  if (typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = encode(v);
    return out;
  }
  throw new Error(`cannot keep a value of type ${typeof value} across restarts`);
}

function tagOf(value: object): string | undefined {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0]!.startsWith('$') ? keys[0] : undefined;
}

export function decode(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(decode);
  const record = value as Record<string, unknown>;
  switch (tagOf(record)) {
    case '$bigint':
      return BigInt(String(record.$bigint));
    case '$map':
      return new Map((record.$map as unknown[][]).map(([k, v]) => [decode(k), decode(v)]));
    case '$set':
      return new Set((record.$set as unknown[]).map(decode));
    case '$key': {
      const key = record.$key as { type: string; pem: string };
      return key.type === 'private' ? createPrivateKey(key.pem) : createPublicKey(key.pem);
    }
    default:
      return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, decode(v)]));
  }
}

/** The kept fields of a stand-in's state, as JSON. */
export function snapshotOf<S>(state: S, spec: PersistSpec<S>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const key of spec.keys) out[key] = encode(state[key]);
  return out;
}

/**
 * Puts kept fields back into a state in place: Maps, Sets, arrays and objects keep their identity,
 * since the stand-in's parts hold references to them. Fields missing from the snapshot stay as
 * they are (a snapshot written before a field was kept).
 */
export function restoreSnapshot<S>(state: S, spec: PersistSpec<S>, snapshot: unknown): void {
  if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot)) throw new Error('a stand-in snapshot must be a JSON object');
  const saved = snapshot as Record<string, unknown>;
  const target = state as Record<string, unknown>;
  for (const key of spec.keys) {
    if (!(key in saved)) continue;
    const value = decode(saved[key]);
    const current = target[key];
    if (current instanceof Map && value instanceof Map) {
      current.clear();
      for (const [k, v] of value) current.set(k, v);
    } else if (current instanceof Set && value instanceof Set) {
      current.clear();
      for (const v of value) current.add(v);
    } else if (Array.isArray(current) && Array.isArray(value)) {
      current.splice(0, current.length, ...value);
    } else if (isPlainObject(current) && isPlainObject(value)) {
      for (const k of Object.keys(current)) delete current[k];
      Object.assign(current, value);
    } else {
      target[key] = value;
    }
  }
  spec.afterRestore?.(state);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Map) && !(value instanceof Set);
}
