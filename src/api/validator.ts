import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ApiError, say } from '../lib/errors.js';
import { assertValid } from '../lib/validation.js';
import { isPlainObject } from '../lib/json.js';

/**
 * Route schemas are TypeBox schemas, checked by TypeBox (not Ajv) so every failure renders in the
 * specification's wording with field paths. A union marked with `discriminator` is checked
 * against the member its discriminator value picks, which gives errors for that member only.
 */
function pickMember(schema: TSchema, value: Record<string, unknown>): TSchema {
  const key = (schema as { discriminator?: string }).discriminator;
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

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  return (data: unknown) => {
    try {
      if (httpPart === 'body') {
        if (!isPlainObject(data)) throw ApiError.of('bad_request', 'Request body must be a JSON object.');
        return { value: assertValid(pickMember(schema, data), data) };
      }
      if (httpPart === 'querystring') {
        // Query values arrive as text; numbers are read as numbers before the check.
        const converted = Value.Convert(schema, data);
        return { value: assertValid(schema, converted) };
      }
      return { value: assertValid(schema, data) };
    } catch (error) {
      return { error: error as Error };
    }
  };
};
