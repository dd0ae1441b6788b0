/**
 * The NLP integration of a channel as the API shows and takes it, from the generated API types.
 * Times are ISO 8601 strings.
 */
import type { AnswerOf, BodyOf } from '../../api';
export type NlpView = AnswerOf<'/v1/channels/{channel_id}/nlp', 'get'>;
export type NlpKind = NlpView['kind'];
export type NlpTraining = NonNullable<NlpView['training']>;
export type TrainingStatus = NlpTraining['status'];
export type TrainingEntity = NonNullable<NlpView['entities']>[number];
export type NlpStats = NlpView['stats'];

export type NlpInput = BodyOf<'/v1/channels/{channel_id}/nlp', 'put'>;
export type BuiltinInput = Extract<NlpInput, { kind: 'builtin' }>;
export type ExternalInput = Extract<NlpInput, { kind: 'external' }>;
/** PATCH: any field but `kind`; null clears what may be cleared. */
export type NlpPatch = BodyOf<'/v1/channels/{channel_id}/nlp', 'patch'>;
export type NlpParseResult = AnswerOf<'/v1/channels/{channel_id}/nlp/parse', 'post'>;

/** Mirrors the server's limits (NLP_LIMITS) where the form checks before sending. */
export const NLP_FORM_LIMITS = { minBudgetMs: 10, maxBudgetMs: 10_000, languages: 10, parseTextLength: 4096 } as const;
