import type { Agent } from 'undici';
import type { Base } from './base.js';
import type { Content } from '../schemas/content.js';
import type { NlpField, NlpTrainingData } from '../schemas/nlp.js';
import { JobKinds } from '../queue/jobs-task.js';
import { ReceivedTextClassifier } from '../domain/nlp/classifier.js';
import { NlpIntegrationService } from '../domain/nlp/service.js';
import { nlpTrainingJob } from '../domain/nlp/training-job.js';
import type { ChannelCache } from '../domain/messages/channel-cache.js';
import { BUILTIN_LANGUAGES } from '../nlp/builtin/languages.js';
import { loadBuiltinEngine } from '../nlp/builtin/classifier.js';
import { trainModel } from '../nlp/builtin/trainer.js';
import { externalEngine } from '../nlp/external/engine.js';
import { nlpDispatcher } from '../nlp/external/dispatcher.js';

export interface ClassifierWiring {
  classifier: ReceivedTextClassifier;
  /** The received text's `nlp` within its budget, for the inbound and web chat paths. */
  classify: (channelId: number, content: Content) => Promise<NlpField | undefined>;
  /** The external engines' HTTP agent (closed with the runtime). */
  calls: Agent;
}

/**
 * NLP on received text: each channel's integration (built-in, trained by a job; or an external NLU
 * server behind the address guard). The engine held for a channel goes when the channel cache
 * forgets the channel or its model changes.
 */
export function wireClassifier({ config, store, box, logger, signals }: Base): ClassifierWiring {
  const calls = nlpDispatcher({ allowlist: config.nlp.allowlist });
  const classifier = new ReceivedTextClassifier({
    store,
    box,
    engines: { builtin: loadBuiltinEngine, external: (o) => externalEngine({ ...o, dispatcher: calls }) },
    now: () => Date.now(),
    cacheMs: config.channelCacheMs,
    defaultBudgetMs: config.nlp.timeBudgetMs,
    statsFlushMs: 5_000,
    logger: logger.child({ component: 'nlp' }),
  });
  signals.on('channelForgotten', ({ channelId }) => classifier.forget(channelId));
  signals.on('nlpModelChanged', ({ channelId }) => classifier.forget(channelId));
  return { classifier, classify: (channelId, content) => classifier.classify(channelId, content), calls };
}

/** The API's rules of a channel's NLP integration; a change of training data signals `jobsDue`. */
export function wireNlpIntegrations(
  { store, ids, clock, box, signals }: Base,
  classifier: ReceivedTextClassifier,
  channelCache: ChannelCache,
): NlpIntegrationService {
  return new NlpIntegrationService({
    store,
    ids,
    clock,
    box,
    channel: (accountId, channelId) => channelCache.get(accountId, channelId),
    classifier,
    supportedLanguages: BUILTIN_LANGUAGES,
    signals,
  });
}

/**
 * The training job kind, run apart from the send jobs (their own few slots, one account's one at a
 * time), so a long training never holds a send's room. `train` replaces the built-in trainer (tests).
 */
export function trainingJobKinds({ config, store, clock, signals, logger }: Base, train?: (data: NlpTrainingData) => Promise<string>): JobKinds {
  return new JobKinds().register(
    nlpTrainingJob({
      store,
      clock,
      train: train ?? ((data) => trainModel(data, { timeoutMs: config.nlp.trainingTimeoutMs, memoryMb: config.nlp.trainingMemoryMb })),
      signals,
      logger: logger.child({ worker: 'nlp-training' }),
    }),
  );
}
