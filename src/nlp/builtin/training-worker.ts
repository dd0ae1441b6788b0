import { parentPort, workerData } from 'node:worker_threads';
import type { NlpTrainingData } from '../../schemas/nlp.js';
import { trainInThread } from './model-training.js';

/** The training worker thread (trainer.ts): trains on `workerData` and posts the model or the error once. */
export type TrainingAnswer = { ok: true; model: string } | { ok: false; message: string };

const port = parentPort;
if (port) {
  const answer = (message: TrainingAnswer) => port.postMessage(message);
  trainInThread(workerData as NlpTrainingData).then(
    (model) => answer({ ok: true, model }),
    (error: unknown) => answer({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
}
