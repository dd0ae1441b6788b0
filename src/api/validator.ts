import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { ApiError, say } from '../lib/errors.js';
import { assertValid } from '../lib/validation.js';
import { isPlainObject } from '../lib/json.js';
import { discriminatorOf } from '../schemas/common.js';

/**
 * Route schemas are TypeBox schemas, checked by TypeBox (not Ajv) so every failure renders in the
 * specification's wording with field paths. A union marked with `discriminator` is checked
 * against the member its discriminator value picks, which gives errors for that member only.
 */
function pickMember(schema: TSchema, value: Record<string, unknown>): TSchema {
  const key = discriminatorOf(schema);
  const members = (schema as { anyOf?: TSchema[] }).anyOf;
  if (!key || !members) return schema;
  if (!(key in value)) throw ApiError.invalid(key, null, say.missing(key));
  const wanted = value[key];
  const member = members.find((m) => (m as { properties?: Record<string, { const?: unknown }> }).properties?.[key]?.const === wanted);
  if (member) return member;
  const allowed = members.map((m) => String((m as { properties?: Record<string, { const?: unknown }> }).properties?.[key]?.const));
  if (wanted === null) throw ApiError.invalid(key, null, say.cannotBeNull(key));
  throw ApiError.invalid(key, wanted, say.notAllowedValue(key, wanted, allowed));
}

/** Query values arrive as text; only whole decimal text becomes a number, so "1.5" stays refused. */
function queryNumbers(schema: TSchema, data: unknown): unknown {
  if (!isPlainObject(data)) return data;
  const props = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  const out: Record<string, unknown> = { ...data };
  for (const [key, value] of Object.entries(out)) {
    if (typeof value !== 'string' || !Object.hasOwn(props, key)) continue;
    const type = props[key]?.type;
    if (type === 'integer' && /^-?[0-9]{1,15}$/.test(value)) out[key] = Number(value);
    if (type === 'number' && /^-?[0-9]{1,15}(\.[0-9]+)?$/.test(value)) out[key] = Number(value);
  }
  return out;
}

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  return (data: unknown) => {
    try {
      if (httpPart === 'body') {
        if (!isPlainObject(data)) throw ApiError.of('bad_request', 'Request body must be a JSON object.');
        return { value: assertValid(pickMember(schema, data), data) };
      }
      if (httpPart === 'querystring') {
        return { value: assertValid(schema, queryNumbers(schema, data)) };
      }
      return { value: assertValid(schema, data) };
    } catch (error) {
      return { error: error as Error };
    }
  };
};
