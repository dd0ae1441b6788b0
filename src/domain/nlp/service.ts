import type { Store } from '../../store/store.js';
import type { NlpIntegrationRow } from '../../store/repos/nlp.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import { ApiError, say } from '../../lib/errors.js';
import { newJob } from '../../queue/jobs-task.js';
import type { NlpField, NlpIntegrationInput, NlpIntegrationPatch, NlpIntegrationView, NlpTrainingData } from '../../schemas/nlp.js';
import { integrationView, trainingDataOf, externalConfigOf, type StoredConfig } from './view.js';
import { checkTrainingData } from './training-data.js';
import { nlpTrainingJobKind, NLP_TRAINING_MAX_ATTEMPTS } from './training-job.js';
import type { ReceivedTextClassifier } from './classifier.js';
import type { DomainSignals } from '../signals.js';

export interface NlpIntegrationServiceDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  box: SecretBox;
  /** The account's channel, or a 404 (the channel cache). */
  channel(accountId: number, channelId: number): Promise<unknown>;
  classifier: ReceivedTextClassifier;
  /** The languages the built-in engine has. */
  supportedLanguages: readonly string[];
  /** Told `jobsDue` after a training job committed (wakes the jobs runners). */
  signals: DomainSignals;
}

const BUILTIN_ONLY = ['languages', 'intents', 'entities'] as const;
const EXTERNAL_ONLY = ['url', 'auth_token'] as const;

function notFound(): ApiError {
  return ApiError.of('not_found', 'The channel has no NLP integration.');
}

/**
 * A channel's NLP integration (beyond the specification): one per channel, built-in (trained here
 * from its intents by a job, the model kept in the store) or external (an NLU server's parse
 * API). A change of the training data queues a training job in the same transaction; the model
 * in use keeps serving until the new one is stored. Every change is told to the classifier, which
 * drops what it holds of the channel.
 */
export class NlpIntegrationService {
  constructor(private readonly deps: NlpIntegrationServiceDeps) {}

  private get defaultBudgetMs(): number {
    return this.deps.classifier.defaultBudgetMs;
  }

  private async existing(accountId: number, channelId: number): Promise<NlpIntegrationRow> {
    await this.deps.channel(accountId, channelId);
    const row = await this.deps.store.nlp.find(accountId, channelId);
    if (!row) throw notFound();
    return row;
  }

  /** The integration, with statistics that include this process's latest counts. */
  async get(accountId: number, channelId: number): Promise<NlpIntegrationView> {
    const view = await this.find(accountId, channelId);
    if (!view) throw notFound();
    return view;
  }

  /** The channel's integration, or null when it has none (a channel that is not there is still a 404). */
  async find(accountId: number, channelId: number): Promise<NlpIntegrationView | null> {
    await this.deps.channel(accountId, channelId);
    await this.deps.classifier.flushStats();
    const row = await this.deps.store.nlp.find(accountId, channelId);
    return row ? integrationView(row, this.defaultBudgetMs) : null;
  }

  /** Creates or replaces the integration; `created` tells which. */
  async put(accountId: number, channelId: number, input: NlpIntegrationInput): Promise<{ view: NlpIntegrationView; created: boolean }> {
    await this.deps.channel(accountId, channelId);
    const previous = await this.deps.store.nlp.find(accountId, channelId);
    const config: StoredConfig =
      input.kind === 'builtin'
        ? checkTrainingData({ languages: input.languages, intents: input.intents, entities: input.entities }, this.deps.supportedLanguages)
        : { url: input.url };
    const secret = input.kind === 'external' && input.auth_token ? this.deps.box.encrypt(input.auth_token) : null;
    const row = await this.save(accountId, channelId, previous, input.kind, config, secret, input.time_budget_ms ?? null);
    return { view: integrationView(row, this.defaultBudgetMs), created: previous === undefined };
  }

  /** Changes some fields; the kind stays (a replacement changes it). */
  async patch(accountId: number, channelId: number, patch: NlpIntegrationPatch): Promise<NlpIntegrationView> {
    const previous = await this.existing(accountId, channelId);
    const foreign = previous.kind === 'builtin' ? EXTERNAL_ONLY : BUILTIN_ONLY;
    for (const field of foreign) {
      if (patch[field] !== undefined)
        throw ApiError.invalid(field, patch[field], `${say.notSupported(field)} An integration of kind '${previous.kind}' has no such field.`);
    }
    let config: StoredConfig;
    let secret = previous.secret;
    const data = trainingDataOf(previous);
    if (data) {
      const entities = patch.entities === null ? [] : (patch.entities ?? data.entities);
      const merged: NlpTrainingData = { languages: patch.languages ?? data.languages, intents: patch.intents ?? data.intents, entities };
      config = checkTrainingData(merged, this.deps.supportedLanguages);
    } else {
      config = { url: patch.url ?? externalConfigOf(previous)!.url };
      if (patch.auth_token !== undefined) secret = patch.auth_token === null ? null : this.deps.box.encrypt(patch.auth_token);
    }
    const budget = patch.time_budget_ms === undefined ? previous.time_budget_ms : patch.time_budget_ms;
    const row = await this.save(accountId, channelId, previous, previous.kind === 'builtin' ? 'builtin' : 'external', config, secret, budget);
    return integrationView(row, this.defaultBudgetMs);
  }

  async remove(accountId: number, channelId: number): Promise<void> {
    await this.deps.channel(accountId, channelId);
    if (!(await this.deps.store.nlp.delete(accountId, channelId))) throw notFound();
    this.deps.classifier.forget(channelId);
  }

  /** Classifies a text now (the administration app's "try a phrase"); not counted in the statistics. */
  async parse(accountId: number, channelId: number, text: string): Promise<{ nlp: NlpField }> {
    await this.existing(accountId, channelId);
    const outcome = await this.deps.classifier.tryText(channelId, text);
    if (outcome.ok) return { nlp: outcome.result };
    if (outcome.reason === 'not_ready') throw ApiError.of('conflict', outcome.message);
    throw ApiError.of('platform_error', outcome.message);
  }

  /**
   * Writes the integration. Built-in data that changed (or a new built-in integration) gets the
   * next training version and a training job in the same transaction; unchanged data keeps its
   * model and training state. A built-in integration that became external loses its model.
   */
  private async save(
    accountId: number,
    channelId: number,
    previous: NlpIntegrationRow | undefined,
    kind: 'builtin' | 'external',
    config: StoredConfig,
    secret: string | null,
    timeBudgetMs: number | null,
  ): Promise<NlpIntegrationRow> {
    const { store, clock, ids } = this.deps;
    const now = clock.now();
    const configText = JSON.stringify(config);
    const retrain = kind === 'builtin' && (previous?.kind !== 'builtin' || previous.config !== configText);
    const version = (previous?.training_version ?? 0) + (retrain ? 1 : 0);
    const row: NlpIntegrationRow = {
      channel_id: channelId,
      account_id: accountId,
      kind,
      config: configText,
      secret: kind === 'external' ? secret : null,
      time_budget_ms: timeBudgetMs,
      training_version: version,
      training_status: kind === 'builtin' ? (retrain ? 'queued' : (previous?.training_status ?? 'queued')) : null,
      training_error: kind === 'builtin' && !retrain ? (previous?.training_error ?? null) : null,
      model_version: kind === 'builtin' && previous?.kind === 'builtin' ? previous.model_version : null,
      trained_at: kind === 'builtin' && previous?.kind === 'builtin' ? previous.trained_at : null,
      classified: previous?.classified ?? 0,
      failed: previous?.failed ?? 0,
      timed_out: previous?.timed_out ?? 0,
      last_failure_at: previous?.last_failure_at ?? null,
      last_failure: previous?.last_failure ?? null,
      created_at: previous?.created_at ?? now,
      updated_at: now,
    };
    await store.transaction(async (tx) => {
      if (previous) {
        // The statistics are added to by every instance (addStats): a change does not write them.
        const {
          channel_id: _c,
          account_id: _a,
          created_at: _t,
          classified: _n,
          failed: _f,
          timed_out: _o,
          last_failure_at: _l,
          last_failure: _m,
          ...changes
        } = row;
        await tx.nlp.update(accountId, channelId, changes);
        if (previous.kind === 'builtin' && kind !== 'builtin') await tx.nlp.deleteModel(channelId);
      } else {
        await tx.nlp.insert(row);
      }
      if (retrain) {
        const job = newJob(
          nlpTrainingJobKind,
          { version },
          { id: ids.nextNumber(), accountId, channelId, runAt: now, maxAttempts: NLP_TRAINING_MAX_ATTEMPTS },
          now,
        );
        await tx.nlp.enqueueTraining(job);
      }
    });
    this.deps.classifier.forget(channelId);
    if (retrain) this.deps.signals.emit('jobsDue');
    return row;
  }
}
