import type { JobKind, JobResult } from '../../queue/jobs-task.js';
import type { ClaimedJob, EndedJob } from '../../store/job-queue.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { NlpTrainingData } from '../../schemas/nlp.js';
import { trainingDataOf } from './view.js';
import type { DomainSignals } from '../signals.js';

/**
 * The training of a built-in integration's model, off the request path: a job per change of the
 * training data, naming the version it trains. A job whose version was overtaken by a newer
 * change, or whose integration is gone, ends without training (the newer change has its own job).
 * The model is stored with its version, so every instance classifies with the same one; the model
 * in use serves until then.
 */
export const NLP_TRAINING_JOB_KIND = 'nlp_training';
/** A process that dies while training leaves the job to another; a training that fails does not run again. */
export const NLP_TRAINING_MAX_ATTEMPTS = 3;

interface Input {
  version: number;
}

/** The kind's row format, without a handler (the integration service writes the rows). */
export const nlpTrainingJobKind: JobKind<Input> = {
  kind: NLP_TRAINING_JOB_KIND,
  encode: (input) => JSON.stringify(input),
  decode: (payload) => {
    const parsed = JSON.parse(payload) as Partial<Input>;
    if (typeof parsed.version !== 'number') throw new Error('an NLP training job without its version');
    return { version: parsed.version };
  },
  handle: () => Promise.resolve({ ok: false, retryable: false, error: 'The NLP training job runs through nlpTrainingJob().' }),
};

export interface NlpTrainingJobDeps {
  store: Store;
  clock: Clock;
  /** Trains a model from the data (off the event loop) and answers it serialised. */
  train(data: NlpTrainingData): Promise<string>;
  /** Told `nlpModelChanged` when a channel's training state or model changed (the classifier drops what it holds). */
  signals: DomainSignals;
  logger: Pick<Logger, 'info' | 'warn'>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The job kind with its handler, registered by the runtime. */
export function nlpTrainingJob(deps: NlpTrainingJobDeps): JobKind<Input> {
  const { store, clock } = deps;
  return {
    ...nlpTrainingJobKind,
    async handle({ version }: Input, job: ClaimedJob): Promise<JobResult> {
      const channelId = job.channelId;
      const head = await store.nlp.head(channelId);
      if (!head || head.kind !== 'builtin' || head.training_version !== version) return { ok: true };
      if (head.model_version !== null && head.model_version >= version) return { ok: true };
      if (!(await store.nlp.startTraining(channelId, version, clock.now()))) return { ok: true };
      deps.signals.emit('nlpModelChanged', { channelId });
      const started = Date.now();
      let model: string;
      try {
        model = await deps.train(trainingDataOf(head)!);
      } catch (error) {
        const message = `The training failed: ${messageOf(error)}`;
        await store.nlp.trainingFailed(channelId, version, message, clock.now());
        deps.signals.emit('nlpModelChanged', { channelId });
        deps.logger.warn({ channel: String(channelId), version, err: error }, 'NLP training failed');
        return { ok: false, retryable: false, error: message };
      }
      const saved = await store.transaction((tx) => tx.nlp.saveModel(channelId, version, model, clock.now()));
      deps.signals.emit('nlpModelChanged', { channelId });
      if (saved) deps.logger.info({ channel: String(channelId), version, ms: Date.now() - started, bytes: model.length }, 'NLP model trained');
      return { ok: true };
    },
    async onEnded({ version }: Input, job: EndedJob): Promise<void> {
      await store.nlp.trainingFailed(job.channelId, version, `The training did not finish (${job.reason}); save the integration again to retry.`, clock.now());
      deps.signals.emit('nlpModelChanged', { channelId: job.channelId });
    },
  };
}
