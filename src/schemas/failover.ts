import { Type, type Static } from '@sinclair/typebox';
import { IdString, Timestamp } from './common.js';
import { ChannelTypeSchema } from './channel-types.js';

/** What moves a failover chain on from one step to the next (beyond the specification). */
export const FAILOVER_CONDITIONS = ['failed', 'not_delivered', 'not_read'] as const;
export type FailoverCondition = (typeof FAILOVER_CONDITIONS)[number];

/** The state of one step: its message's, or `waiting` (not started yet), `skipped` (the chain ended first), `cancelled`. */
export const FAILOVER_STEP_STATES = ['waiting', 'pending', 'sent', 'delivered', 'read', 'failed', 'cancelled', 'skipped'] as const;
export const FAILOVER_OUTCOMES = ['pending', 'sent', 'delivered', 'read', 'failed'] as const;

const enumOf = <T extends readonly string[]>(values: T, description: string) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });

export const FailoverStep = Type.Object(
  {
    step: Type.Integer({ minimum: 0, description: '0: the first message; 1 on: the fallbacks in the order requested.' }),
    channel: Type.Object({ id: IdString, type: ChannelTypeSchema }),
    when: Type.Optional(
      Type.Object(
        {
          condition: enumOf(FAILOVER_CONDITIONS, 'What of the step before moves on to this one.'),
          within: Type.Optional(Type.Integer({ description: 'Seconds, for not_delivered and not_read.' })),
        },
        { additionalProperties: false },
      ),
    ),
    message_id: Type.Union([IdString, Type.Null()], { description: "The step's own message (null until it starts)." }),
    state: enumOf(
      FAILOVER_STEP_STATES,
      "`waiting`: not started; `pending`, `sent`, `delivered`, `read`, `failed`: its message's; `cancelled`: an earlier step was delivered before it went out, nothing was sent; `skipped`: the chain ended before it.",
    ),
    started: Type.Union([Timestamp, Type.Null()]),
    ended: Type.Union([Timestamp, Type.Null()], { description: 'When the chain moved on from it, or stopped at it.' }),
    moved_on: Type.Union([enumOf(FAILOVER_CONDITIONS, 'Why the chain moved on to the next step.'), Type.Null()]),
  },
  { $id: 'FailoverStep', title: 'Failover step', additionalProperties: false },
);

export const FailoverView = Type.Object(
  {
    message_id: IdString,
    outcome: enumOf(
      FAILOVER_OUTCOMES,
      '`delivered` or `read`: some step reached the contact; `failed`: every step started failed and none is left; `sent`: the last step went out with no report; `pending`: still under way.',
    ),
    steps: Type.Array(FailoverStep),
  },
  {
    $id: 'Failover',
    title: 'Failover chain',
    description:
      'Beyond the specification, only on messages sent with `fallbacks`: every step of the one logical message, keyed by its first message (docs/failover.md).',
    additionalProperties: false,
  },
);
export type FailoverViewData = Static<typeof FailoverView>;
export type FailoverStepView = Static<typeof FailoverStep>;
