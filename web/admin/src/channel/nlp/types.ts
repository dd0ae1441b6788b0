/**
 * The NLP integration of a channel as the API shows and takes it (the server's schema is
 * src/schemas/nlp.ts; these are the parts the tab uses). Times are ISO 8601 strings.
 */
export type NlpKind = 'builtin' | 'external';
export type TrainingStatus = 'queued' | 'training' | 'ready' | 'failed';

export interface TrainingIntent {
  id: string;
  /** Example phrases by language code. */
  utterances: Record<string, string[]>;
}

export interface TrainingEntity {
  name: string;
  values: { value: string; synonyms: Record<string, string[]> }[];
}

export interface NlpTraining {
  status: TrainingStatus;
  /** Raised by every change of the training data. */
  version: number;
  /** The version of the model in use; an older one serves while a newer one trains. */
  model_version: number | null;
  error: string | null;
  trained: string | null;
}

export interface NlpStats {
  classified: number;
  failed: number;
  timed_out: number;
  last_failure: { at: string; message: string } | null;
}

export interface NlpView {
  channel: { id: string };
  kind: NlpKind;
  time_budget_ms: number;
  languages?: string[];
  intents?: TrainingIntent[];
  entities?: TrainingEntity[];
  training?: NlpTraining;
  url?: string;
  auth_token_set?: boolean;
  stats: NlpStats;
  created: string;
  updated: string;
}

export interface BuiltinInput {
  kind: 'builtin';
  languages: string[];
  intents: TrainingIntent[];
  entities?: TrainingEntity[];
  time_budget_ms?: number;
}

export interface ExternalInput {
  kind: 'external';
  url: string;
  auth_token?: string | null;
  time_budget_ms?: number;
}

export type NlpInput = BuiltinInput | ExternalInput;

/** PATCH: any field but `kind`; null clears what may be cleared. */
export interface NlpPatch {
  languages?: string[];
  intents?: TrainingIntent[];
  entities?: TrainingEntity[] | null;
  url?: string;
  auth_token?: string | null;
  time_budget_ms?: number | null;
}

export interface NlpParseResult {
  nlp: { intents: { id: string; confidence: number }[]; native_data: Record<string, unknown> };
}

/** Mirrors the server's limits (NLP_LIMITS) where the form checks before sending. */
export const NLP_FORM_LIMITS = { minBudgetMs: 10, maxBudgetMs: 10_000, languages: 10, parseTextLength: 4096 } as const;
