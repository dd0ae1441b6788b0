import { Type, type Static } from '@sinclair/typebox';
import { IdString, Timestamp } from '../../schemas/common.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dropped'] as const;

export const DeliveryAttemptResponse = Type.Object({
  id: IdString,
  attempted: Timestamp,
  url: Type.String({ description: 'Where this try went (the webhook URL at the time).' }),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the answer; null when none came.' }),
  duration_ms: Type.Integer(),
  response_excerpt: Type.Union([Type.String(), Type.Null()], { description: 'The first 4096 bytes of the answer.' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why no answer came (refused, timeout, TLS, address guard).' }),
});

export const DeliveryResponse = Type.Object({
  id: IdString,
  status: Type.Union(
    DELIVERY_STATUSES.map((s) => Type.Literal(s)),
    {
      description: 'pending: due or waiting for a retry; delivered: a 2xx came; failed: every try failed; dropped: the webhook was removed.',
    },
  ),
  event: Type.Object({
    id: IdString,
    type: Type.String(),
    body: Type.Object(
      { event: Type.String(), timestamp: Timestamp, data: Type.Object({}, { additionalProperties: true }) },
      { description: 'The body as sent.' },
    ),
  }),
  created: Timestamp,
  updated: Timestamp,
  next_attempt: Type.Union([Timestamp, Type.Null()], { description: 'When a pending delivery is tried next.' }),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  attempts: Type.Array(DeliveryAttemptResponse, { description: 'Every try, oldest first.' }),
});

export type DeliveryView = Static<typeof DeliveryResponse>;
