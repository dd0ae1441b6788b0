import { isoTime } from '../../lib/clock.js';
import type { NlpIntegrationRow } from '../../store/repos/nlp.js';
import type { NlpIntegrationView, NlpKind, NlpTrainingData, NlpTrainingStatus } from '../../schemas/nlp.js';

/** What `config` holds per kind. */
export type ExternalConfig = { url: string };
export type StoredConfig = NlpTrainingData | ExternalConfig;

export function trainingDataOf(row: Pick<NlpIntegrationRow, 'kind' | 'config'>): NlpTrainingData | null {
  return row.kind === 'builtin' ? (JSON.parse(row.config) as NlpTrainingData) : null;
}

export function externalConfigOf(row: Pick<NlpIntegrationRow, 'kind' | 'config'>): ExternalConfig | null {
  return row.kind === 'external' ? (JSON.parse(row.config) as ExternalConfig) : null;
}

/** The integration as the API shows it: the auth token never, only whether one is set. */
export function integrationView(row: NlpIntegrationRow, defaultBudgetMs: number): NlpIntegrationView {
  const data = trainingDataOf(row);
  const external = externalConfigOf(row);
  return {
    channel: { id: String(row.channel_id) },
    kind: row.kind as NlpKind,
    ...(data
      ? {
          languages: data.languages,
          intents: data.intents,
          entities: data.entities ?? [],
          training: {
            status: (row.training_status ?? 'queued') as NlpTrainingStatus,
            version: row.training_version,
            model_version: row.model_version,
            error: row.training_error,
            trained: row.trained_at === null ? null : isoTime(Number(row.trained_at)),
          },
        }
      : {}),
    ...(external ? { url: external.url, auth_token_set: row.secret !== null } : {}),
    time_budget_ms: row.time_budget_ms ?? defaultBudgetMs,
    stats: {
      classified: Number(row.classified),
      failed: Number(row.failed),
      timed_out: Number(row.timed_out),
      last_failure: row.last_failure_at === null ? null : { at: isoTime(Number(row.last_failure_at)), message: row.last_failure ?? '' },
    },
    created: isoTime(row.created_at),
    updated: isoTime(row.updated_at),
  };
}
