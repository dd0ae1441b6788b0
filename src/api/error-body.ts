import { STATUS_CODES } from 'node:http';
import type { ErrorDetail } from '../lib/errors.js';
import { EXCERPT_CHARS, excerpt } from './request-path.js';

/** Longest message shown; messages may quote what the client sent. */
const MESSAGE_CHARS = 1000;
/** Values nested deeper than this are cut from an excerpt (the body parser refuses deeper bodies). */
const EXCERPT_DEPTH = 64;

/**
 * JSON text of a value, written only until it passes `max` characters or nests too deep (then
 * `complete` is false): never a full walk of a large value.
 */
function boundedJson(value: unknown, max: number): { text: string; complete: boolean } {
  let out = '';
  const write = (v: unknown, depth: number): boolean => {
    if (out.length > max || depth > EXCERPT_DEPTH) return false;
    if (v === null || typeof v !== 'object') {
      const text =
        typeof v === 'string'
          ? JSON.stringify(v.length > max ? v.slice(0, max + 1) : v)
          : typeof v === 'number' || typeof v === 'boolean'
            ? JSON.stringify(v)
            : 'null';
      out += text;
      return out.length <= max;
    }
    if (Array.isArray(v)) {
      out += '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) out += ',';
        if (!write(v[i], depth + 1)) return false;
      }
      out += ']';
      return out.length <= max;
    }
    out += '{';
    let first = true;
    for (const key of Object.keys(v)) {
      const item = (v as Record<string, unknown>)[key];
      if (item === undefined) continue;
      out += `${first ? '' : ','}${JSON.stringify(key.length > max ? key.slice(0, max + 1) : key)}:`;
      first = false;
      if (!write(item, depth + 1)) return false;
    }
    out += '}';
    return out.length <= max;
  };
  const complete = write(value, 0);
  return { text: out, complete };
}

/**
 * A rejected value as shown back: itself when short, else the first characters of its JSON text
 * (so a megabyte string or a deeply nested value is never echoed whole).
 */
export function rejectedExcerpt(value: unknown): unknown {
  if (typeof value === 'string') return excerpt(value);
  if (value === null || typeof value !== 'object') return value;
  const { text, complete } = boundedJson(value, EXCERPT_CHARS);
  return complete ? value : `${text.slice(0, EXCERPT_CHARS)}…`;
}

function shortened(detail: ErrorDetail): ErrorDetail {
  const longMessage = detail.message.length > MESSAGE_CHARS;
  const longField = detail.field !== undefined && detail.field.length > EXCERPT_CHARS;
  const value = 'rejected_value' in detail ? rejectedExcerpt(detail.rejected_value) : undefined;
  if (!longMessage && !longField && value === detail.rejected_value) return detail;
  const out: ErrorDetail = { message: excerpt(detail.message, MESSAGE_CHARS) };
  if (detail.field !== undefined) out.field = excerpt(detail.field);
  if ('rejected_value' in detail) out.rejected_value = value;
  return out;
}

/** The specification's error body; the one place it is rendered. */
export function errorBody(status: number, details: ErrorDetail[], now = Date.now()) {
  return {
    timestamp: new Date(now).toISOString(),
    status: { code: String(status), message: STATUS_CODES[status] ?? 'Error' },
    errors: details.map(shortened),
  };
}
