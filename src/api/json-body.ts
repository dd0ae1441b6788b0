import { ApiError, say } from '../lib/errors.js';
import { isPlainObject } from '../lib/json.js';

/** Deepest nesting of arrays and objects a request body may have (the request itself is one level). */
export const JSON_MAX_DEPTH = 64;

/** How many times `char` occurs in `text`, counting no further than `limit` (native scans). */
function occurrences(text: string, char: string, limit: number): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1 && count < limit; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/** Whether JSON text nests arrays and objects deeper than `max` (brackets inside strings do not count). */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * The first key that names a built-in of every object (`__proto__`, or `constructor` holding a
 * `prototype`) as a field path, or null. Such keys are not data: code that copies them by
 * assignment changes the prototype of its objects.
 */
function forbiddenKey(value: unknown): { field: string; value: unknown } | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]` }));
    } else if (isPlainObject(current)) {
      for (const key of Object.keys(current)) {
        const field = path ? `${path}.${key}` : key;
        const item = current[key];
        if (key === '__proto__' || (key === 'constructor' && isPlainObject(item) && Object.hasOwn(item, 'prototype'))) return { field, value: item };
        stack.push({ value: item, path: field });
      }
    }
  }
  return null;
}

/** The first field (or key) whose text holds U+0000, as a field path, or null. */
function nulField(value: unknown): string | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\0')) return path;
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]` }));
    } else if (isPlainObject(current)) {
      for (const key of Object.keys(current)) {
        const field = path ? `${path}.${key}` : key;
        if (key.includes('\0')) return field;
        stack.push({ value: current[key], path: field });
      }
    }
  }
  return null;
}

/**
 * A JSON request body, parsed. Refused before parsing when it nests deeper than `maxDepth` (a
 * deep value overflows the stack of every recursive reader after the parser); checking costs two
 * native character counts on an ordinary body, and a scan only when those find more brackets than
 * the limit. Keys naming built-ins are refused as unsupported properties; the walk that finds
 * them runs only when the text contains such a name or an escape that could spell one.
 */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  if (occurrences(text, '{', maxDepth + 1) + occurrences(text, '[', maxDepth + 1) > maxDepth && nestsDeeperThan(text, maxDepth)) {
    throw ApiError.of('bad_request', `Request body nests arrays and objects more than ${maxDepth} levels deep.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw ApiError.of('bad_request', 'Request body is not valid JSON.');
  }
  if (text.includes('__proto__') || text.includes('constructor') || text.includes('\\u')) {
    const found = forbiddenKey(value);
    if (found) throw ApiError.invalid(found.field, found.value, say.notSupported(found.field));
  }
  // JSON can carry U+0000 only escaped; PostgreSQL cannot store it in text, so it is refused on
  // both stores alike rather than stored on one and a 500 on the other.
  if (text.includes('\\u0000')) {
    const field = nulField(value);
    if (field !== null) throw ApiError.invalid(field || 'body', null, `'${field || 'body'}' must not contain the NUL character (U+0000).`);
  }
  return value;
}

/** Whitespace only (clients send an empty JSON body on DELETE). */
export function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const c = text.charCodeAt(0);
  return (c === 32 || c === 9 || c === 10 || c === 13) && text.trim().length === 0;
}
