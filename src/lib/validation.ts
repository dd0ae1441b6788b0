import './formats.js';
import type { TSchema, Static } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { ApiError, say, type ErrorDetail } from './errors.js';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerFor<T extends TSchema>(schema: T): TypeCheck<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check as TypeCheck<T>;
}

/** "/content/quick_replies/3/payload" -> "content.quick_replies[3].payload" */
export function pointerToField(pointer: string, prefix = ''): string {
  let out = prefix;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^[0-9]+$/.test(part)) out += `[${part}]`;
    else out += out.length > 0 ? `.${part}` : part;
  }
  return out;
}

function allowedLiterals(schema: TSchema): string[] | null {
  const variants = (schema as { anyOf?: TSchema[] }).anyOf;
  if (!variants) return null;
  const values = variants.map((v) => (v as { const?: unknown }).const);
  return values.every((v) => typeof v === 'string') ? (values as string[]) : null;
}

function describe(error: ValueError, field: string): string {
  const s = error.schema as Record<string, unknown>;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return say.missing(field);
    case ValueErrorType.ObjectAdditionalProperties:
      return say.notSupported(field);
    case ValueErrorType.StringMaxLength:
      return `Property '${field}' must be at most ${String(s.maxLength)} characters long.`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? `Property '${field}' cannot be empty.` : `Property '${field}' must be at least ${String(s.minLength)} characters long.`;
    case ValueErrorType.ArrayMaxItems:
      return `Property '${field}' must have at most ${String(s.maxItems)} items.`;
    case ValueErrorType.ArrayMinItems:
      return `Property '${field}' must have at least ${String(s.minItems)} items.`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `Property '${field}' must be at most ${String(s.maximum)}.`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `Property '${field}' must be at least ${String(s.minimum)}.`;
    case ValueErrorType.StringPattern:
    case ValueErrorType.StringFormat:
      return `Property '${field}' has an invalid format.`;
    case ValueErrorType.Union:
    case ValueErrorType.Literal: {
      const allowed = allowedLiterals(error.schema) ?? (typeof s.const === 'string' ? [s.const] : null);
      if (allowed) return say.notAllowedValue(field, error.value, allowed);
      return `Property '${field}' has an invalid value.`;
    }
    default: {
      const kind = typeof s.type === 'string' ? s.type : 'valid value';
      const article = /^[aeiou]/.test(kind) ? 'an' : 'a';
      return `Property '${field}' must be ${article} ${kind}.`;
    }
  }
}

/**
 * A nullable object (`X | null`) given an object reports one "union" error at its own path; the
 * client is better served by the errors inside X, with their full paths.
 */
function* expandNullable(errors: Iterable<ValueError>): Generator<ValueError> {
  for (const error of errors) {
    const members = (error.schema as { anyOf?: TSchema[] }).anyOf;
    if (error.type === ValueErrorType.Union && members && error.value !== null && typeof error.value === 'object') {
      const nonNull = members.filter((m) => (m as { type?: string }).type !== 'null');
      if (nonNull.length === 1 && nonNull.length < members.length) {
        for (const inner of checkerFor(nonNull[0] as TSchema).Errors(error.value)) {
          yield { ...inner, path: `${error.path}${inner.path}` };
        }
        continue;
      }
    }
    yield error;
  }
}

/** Turns TypeBox errors into the specification's validation details: one per field, first wins. */
export function toDetails(errors: Iterable<ValueError>, prefix = ''): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const error of expandNullable(errors)) {
    const field = pointerToField(error.path, prefix) || prefix || 'body';
    if (seen.has(field)) continue;
    seen.add(field);
    const rejected = error.value === undefined ? null : error.value;
    const message = error.value === null && error.type !== ValueErrorType.ObjectAdditionalProperties ? say.cannotBeNull(field) : describe(error, field);
    details.push({ message, field, rejected_value: rejected });
    if (details.length >= 20) break;
  }
  return details;
}

/** Checks a value against a schema and throws a 422 with field paths when it does not match. */
export function assertValid<T extends TSchema>(schema: T, value: unknown, prefix = ''): Static<T> {
  const check = checkerFor(schema);
  if (check.Check(value)) return value;
  throw new ApiError('validation', toDetails(check.Errors(value), prefix));
}
