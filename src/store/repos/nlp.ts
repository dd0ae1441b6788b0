import { sql, type Kysely, type Updateable } from 'kysely';
import type { Database, NlpIntegrationsTable, NlpModelsTable } from '../schema.js';
import type { NewJob } from '../job-queue.js';
import { jobRow } from '../job-rows.js';

export type NlpIntegrationRow = NlpIntegrationsTable;

/** What the received-message path needs of an integration: everything but the statistics. */
export type NlpIntegrationHead = Omit<NlpIntegrationRow, 'classified' | 'failed' | 'timed_out' | 'last_failure_at' | 'last_failure'>;

/** Counts one instance adds to an integration's statistics since it last wrote them. */
export interface NlpStatsDelta {
  channelId: number;
  classified: number;
  failed: number;
  timedOut: number;
  lastFailure: { at: number; message: string } | null;
}

const HEAD_COLUMNS = [
  'channel_id',
  'account_id',
  'kind',
  'config',
  'secret',
  'time_budget_ms',
  'training_version',
  'training_status',
  'training_error',
  'model_version',
  'trained_at',
  'created_at',
  'updated_at',
] as const;

/**
 * A channel's NLP integration and its trained model. Methods that serve the API take the account
 * id; the received-message path and the training job name the channel only (they come from a
 * channel already found).
 */
export class NlpRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async find(accountId: number, channelId: number): Promise<NlpIntegrationRow | undefined> {
    return this.db.selectFrom('nlp_integrations').selectAll().where('account_id', '=', accountId).where('channel_id', '=', channelId).executeTakeFirst();
  }

  /** The integration of a channel, without its statistics (the received-message path). */
  async head(channelId: number): Promise<NlpIntegrationHead | undefined> {
    return this.db.selectFrom('nlp_integrations').select(HEAD_COLUMNS).where('channel_id', '=', channelId).executeTakeFirst();
  }

  async insert(row: NlpIntegrationRow): Promise<void> {
    await this.db.insertInto('nlp_integrations').values(row).execute();
  }

  async update(accountId: number, channelId: number, changes: Updateable<NlpIntegrationsTable>): Promise<boolean> {
    const result = await this.db
      .updateTable('nlp_integrations')
      .set(changes)
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Removes the integration (its model goes with it). */
  async delete(accountId: number, channelId: number): Promise<boolean> {
    const result = await this.db.deleteFrom('nlp_integrations').where('account_id', '=', accountId).where('channel_id', '=', channelId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Drops a model no longer of use (the integration became external). */
  async deleteModel(channelId: number): Promise<void> {
    await this.db.deleteFrom('nlp_models').where('channel_id', '=', channelId).execute();
  }

  /**
   * Marks the training of `version` started, unless a newer version was asked for meanwhile
   * (then that version's own job trains it). False when there is nothing to train.
   */
  async startTraining(channelId: number, version: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('nlp_integrations')
      .set({ training_status: 'training', training_error: null, updated_at: now })
      .where('channel_id', '=', channelId)
      .where('training_version', '=', version)
      .where('kind', '=', 'builtin')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Stores the model trained from `version` and makes it the one in use, unless a model of a newer
   * version is there already. The training status becomes `ready` only when no newer version is
   * waiting. False when the integration is gone or the model is older than the one kept. Run it
   * in a transaction (Store.transaction), so the model and its version change together.
   */
  async saveModel(channelId: number, version: number, model: string, now: number): Promise<boolean> {
    const tx = this.db;
    const current = await tx
      .selectFrom('nlp_integrations')
      .select(['training_version', 'model_version', 'kind'])
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    if (!current || current.kind !== 'builtin' || (current.model_version !== null && current.model_version >= version)) return false;
    await tx.deleteFrom('nlp_models').where('channel_id', '=', channelId).execute();
    const row: NlpModelsTable = { channel_id: channelId, version, model, created_at: now };
    await tx.insertInto('nlp_models').values(row).execute();
    const newest = current.training_version === version;
    await tx
      .updateTable('nlp_integrations')
      .set({
        model_version: version,
        trained_at: now,
        updated_at: now,
        ...(newest ? { training_status: 'ready', training_error: null } : {}),
      })
      .where('channel_id', '=', channelId)
      .execute();
    return true;
  }

  /** The training of `version` failed; recorded unless a newer version was asked for meanwhile. */
  async trainingFailed(channelId: number, version: number, error: string, now: number): Promise<void> {
    await this.db
      .updateTable('nlp_integrations')
      .set({ training_status: 'failed', training_error: error, updated_at: now })
      .where('channel_id', '=', channelId)
      .where('training_version', '=', version)
      .execute();
  }

  async model(channelId: number): Promise<Pick<NlpModelsTable, 'version' | 'model'> | undefined> {
    return this.db.selectFrom('nlp_models').select(['version', 'model']).where('channel_id', '=', channelId).executeTakeFirst();
  }

  /** Queues the training job of a change, in the change's transaction. */
  async enqueueTraining(job: NewJob): Promise<void> {
    await this.db.insertInto('jobs').values(jobRow(job)).execute();
  }

  /** Adds counted outcomes to the statistics (one statement per integration; a removed one is skipped). */
  async addStats(deltas: readonly NlpStatsDelta[]): Promise<void> {
    for (const d of deltas) {
      await this.db
        .updateTable('nlp_integrations')
        .set((eb) => ({
          classified: eb('classified', '+', d.classified),
          failed: eb('failed', '+', d.failed),
          timed_out: eb('timed_out', '+', d.timedOut),
          ...(d.lastFailure
            ? {
                last_failure_at: sql<number>`case when last_failure_at is null or last_failure_at <= ${d.lastFailure.at} then ${d.lastFailure.at} else last_failure_at end`,
                last_failure: sql<string>`case when last_failure_at is null or last_failure_at <= ${d.lastFailure.at} then ${d.lastFailure.message} else last_failure end`,
              }
            : {}),
        }))
        .where('channel_id', '=', d.channelId)
        .execute();
    }
  }
}
