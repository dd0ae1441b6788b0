import { Type, type TSchema } from '@sinclair/typebox';

/** Shapes shared by many resources. */
export const IdString = Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'Decimal id, below 2^53.' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' });

export const ListQuery = Type.Object(
  {
    max: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Page size.' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Offset of the first result.' })),
    access_token: Type.Optional(Type.String({ description: 'Alternative to the Authorization header.' })),
  },
  { additionalProperties: true },
);

export const ErrorBody = Type.Object(
  {
    timestamp: Timestamp,
    status: Type.Object({ code: Type.String(), message: Type.String() }),
    errors: Type.Array(
      Type.Object({
        message: Type.String(),
        field: Type.Optional(Type.String()),
        rejected_value: Type.Optional(Type.Unknown()),
      }),
    ),
  },
  { $id: 'Error' },
);

/**
 * The discriminator of unions whose members are told apart by their `type` (OpenAPI's
 * Discriminator Object). The request validator picks the member to check by it, too.
 */
export const TYPE_DISCRIMINATOR: Readonly<{ propertyName: string }> = Object.freeze({ propertyName: 'type' });

/** The property a union schema is discriminated by, if it is. */
export function discriminatorOf(schema: TSchema): string | undefined {
  const d = (schema as { discriminator?: { propertyName?: unknown } }).discriminator;
  return typeof d?.propertyName === 'string' ? d.propertyName : undefined;
}

/** A value, or null meaning "delete" in PATCH bodies. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
