import { Type, type Static } from '@sinclair/typebox';
import { IdString, Timestamp } from './common.js';

/**
 * NLP on received text (messaging-api.md, Events, detail 1): what a received text message carries,
 * and the channel's NLP integration that produces it (beyond the specification: how a channel is
 * connected to an NLP engine is not specified; the integration is a sub-resource of the channel).
 */
const strict = { additionalProperties: false } as const;

/** The limits of an integration, enforced by the schema and the domain, documented in docs/nlp.md. */
export const NLP_LIMITS = {
  languages: 10,
  intents: 200,
  utterancesPerLanguage: 1000,
  /** Utterances of every intent and language together. */
  utterancesTotal: 20_000,
  phraseLength: 500,
  entities: 50,
  entityValues: 200,
  synonymsPerLanguage: 50,
  synonymLength: 100,
  idLength: 64,
  minBudgetMs: 10,
  maxBudgetMs: 10_000,
  parseTextLength: 4096,
} as const;

export const NLP_KINDS = ['builtin', 'external'] as const;
export type NlpKind = (typeof NLP_KINDS)[number];

export const NlpIntentResult = Type.Object(
  { id: Type.String({ description: 'The intent.' }), confidence: Type.Number({ minimum: 0, maximum: 1 }) },
  { title: 'NLP intent' },
);

/** `nlp` of a received text message. */
export const NlpField = Type.Object(
  {
    intents: Type.Array(NlpIntentResult, { description: 'Ordered by confidence, highest first.' }),
    native_data: Type.Record(Type.String(), Type.Unknown(), { description: "The NLP engine's full response." }),
  },
  { title: 'NLP result', description: 'Present only for received text messages on channels with an NLP integration that answered within its time budget.' },
);
export type NlpField = Static<typeof NlpField>;

const Identifier = Type.String({ minLength: 1, maxLength: NLP_LIMITS.idLength, pattern: '^[A-Za-z0-9_.:-]+$' });
const Language = Type.String({
  minLength: 2,
  maxLength: 2,
  pattern: '^[a-z]{2}$',
  description: 'ISO 639-1 code; one of the languages the built-in engine supports.',
});
const Phrase = Type.String({ minLength: 1, maxLength: NLP_LIMITS.phraseLength, pattern: '\\S' });
const Synonym = Type.String({ minLength: 1, maxLength: NLP_LIMITS.synonymLength, pattern: '\\S' });
const TimeBudget = Type.Integer({
  minimum: NLP_LIMITS.minBudgetMs,
  maximum: NLP_LIMITS.maxBudgetMs,
  description:
    'How long a received message may wait for the engine (ms); later, the event goes out without `nlp`. Default: the server setting NLP_TIME_BUDGET_MS (500).',
});

export const NlpTrainingIntent = Type.Object(
  {
    id: Identifier,
    utterances: Type.Record(Type.String(), Type.Array(Phrase, { minItems: 1, maxItems: NLP_LIMITS.utterancesPerLanguage }), {
      description: 'Example phrases by language; every key is one of `languages`.',
    }),
  },
  { ...strict, title: 'NLP training intent' },
);

export const NlpTrainingEntity = Type.Object(
  {
    name: Identifier,
    values: Type.Array(
      Type.Object(
        {
          value: Type.String({ minLength: 1, maxLength: NLP_LIMITS.synonymLength, pattern: '\\S' }),
          synonyms: Type.Record(Type.String(), Type.Array(Synonym, { minItems: 1, maxItems: NLP_LIMITS.synonymsPerLanguage }), {
            description: 'The texts that name the value, by language.',
          }),
        },
        strict,
      ),
      { minItems: 1, maxItems: NLP_LIMITS.entityValues },
    ),
  },
  { ...strict, title: 'NLP training entity' },
);

const builtinFields = {
  languages: Type.Array(Language, { minItems: 1, maxItems: NLP_LIMITS.languages, uniqueItems: true }),
  intents: Type.Array(NlpTrainingIntent, { minItems: 1, maxItems: NLP_LIMITS.intents }),
  entities: Type.Optional(Type.Array(NlpTrainingEntity, { maxItems: NLP_LIMITS.entities })),
};
const externalFields = {
  url: Type.String({ pattern: '^https?://', maxLength: 2048, description: 'The NLU server; calls go to `{url}/model/parse`.' }),
  auth_token: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 512 }), Type.Null()], { description: 'Sent as the `token` query parameter. Write-only.' }),
  ),
};

export const NlpBuiltinInput = Type.Object(
  { kind: Type.Literal('builtin'), ...builtinFields, time_budget_ms: Type.Optional(TimeBudget) },
  { ...strict, title: 'Built-in NLP integration' },
);
export const NlpExternalInput = Type.Object(
  { kind: Type.Literal('external'), ...externalFields, time_budget_ms: Type.Optional(TimeBudget) },
  { ...strict, title: 'External NLP integration' },
);
export const NlpIntegrationInput = Type.Union([NlpBuiltinInput, NlpExternalInput], {
  discriminator: { propertyName: 'kind' },
  title: 'NLP integration input',
});
export type NlpIntegrationInput = Static<typeof NlpIntegrationInput>;
export type NlpBuiltinInput = Static<typeof NlpBuiltinInput>;
export type NlpTrainingData = Pick<NlpBuiltinInput, 'languages' | 'intents' | 'entities'>;

/** PATCH: any field but `kind`, which only a replacement (PUT) changes. */
export const NlpIntegrationPatch = Type.Object(
  {
    languages: Type.Optional(builtinFields.languages),
    intents: Type.Optional(builtinFields.intents),
    entities: Type.Optional(Type.Union([builtinFields.entities, Type.Null()])),
    url: Type.Optional(externalFields.url),
    auth_token: externalFields.auth_token,
    time_budget_ms: Type.Optional(Type.Union([TimeBudget, Type.Null()])),
  },
  { ...strict, title: 'NLP integration changes' },
);
export type NlpIntegrationPatch = Static<typeof NlpIntegrationPatch>;

export const NLP_TRAINING_STATUSES = ['queued', 'training', 'ready', 'failed'] as const;
export type NlpTrainingStatus = (typeof NLP_TRAINING_STATUSES)[number];

const NlpStats = Type.Object(
  {
    classified: Type.Integer({ description: 'Received texts the engine answered in time.' }),
    failed: Type.Integer({ description: 'Engine failures (errors, unreadable answers, no trained model yet).' }),
    timed_out: Type.Integer({ description: 'Calls cut off at the time budget.' }),
    last_failure: Type.Union([Type.Object({ at: Timestamp, message: Type.String() }), Type.Null()]),
  },
  { description: 'Counted by every instance; failures are also logged.' },
);

export const NlpIntegrationView = Type.Object(
  {
    channel: Type.Object({ id: IdString }),
    kind: Type.Union(NLP_KINDS.map((k) => Type.Literal(k))),
    time_budget_ms: Type.Integer(),
    languages: Type.Optional(Type.Array(Type.String())),
    intents: Type.Optional(Type.Array(NlpTrainingIntent)),
    entities: Type.Optional(Type.Array(NlpTrainingEntity)),
    training: Type.Optional(
      Type.Object({
        status: Type.Union(NLP_TRAINING_STATUSES.map((s) => Type.Literal(s))),
        version: Type.Integer({ description: 'Raised by every change of the training data.' }),
        model_version: Type.Union([Type.Integer(), Type.Null()], {
          description: 'The version of the model in use (an older one serves while a newer trains).',
        }),
        error: Type.Union([Type.String(), Type.Null()]),
        trained: Type.Union([Timestamp, Type.Null()]),
      }),
    ),
    url: Type.Optional(Type.String()),
    auth_token_set: Type.Optional(Type.Boolean()),
    stats: NlpStats,
    created: Timestamp,
    updated: Timestamp,
  },
  { $id: 'NlpIntegration', title: 'NLP integration' },
);
export type NlpIntegrationView = Static<typeof NlpIntegrationView>;

export const NlpParseBody = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: NLP_LIMITS.parseTextLength }) },
  { ...strict, title: 'NLP parse request' },
);
export const NlpParseResponse = Type.Object({ nlp: NlpField }, { title: 'NLP parse result' });
