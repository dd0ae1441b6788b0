import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { NlpTrainingData } from '../../schemas/nlp.js';
import { trainInThread } from './model-training.js';
import type { TrainingAnswer } from './training-worker.js';

export { trainInThread };

export const DEFAULT_TRAINING_TIMEOUT_MS = 120_000;

const CANCELLED = 'Training was cancelled before it ended.';

/**
 * Training holds every phrase and the network in memory: the training thread's heap is bounded,
 * so a large training stops at its bound instead of the process's own limit (NLP_TRAINING_MEMORY_MB).
 */
export const DEFAULT_TRAINING_MEMORY_MB = 512;

export interface TrainOptions {
  /** Training still running after this is stopped (the worker is terminated) and the promise rejects. Default 120 s. */
  timeoutMs?: number;
  /** Stops the training (shutdown); the promise rejects. Neither this nor the timeout can stop training in the calling thread (see below). */
  signal?: AbortSignal;
  /** The training thread's heap (MB); a training that needs more is stopped and the promise rejects saying so. Default 512. */
  memoryMb?: number;
}

/**
 * Trains a model on the training data and resolves with it serialised (JSON text), for
 * loadBuiltinEngine. Training runs in a worker thread so the event loop keeps serving; it rejects
 * with an Error saying why when the data cannot be trained, or when it takes too long.
 */
export async function trainModel(data: NlpTrainingData, options: TrainOptions = {}): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TRAINING_TIMEOUT_MS;
  const memoryMb = options.memoryMb ?? DEFAULT_TRAINING_MEMORY_MB;
  if (options.signal?.aborted) throw new Error(CANCELLED);
  const start = workerStart();
  // A bundled program has no worker file beside it: training there blocks the event loop for its
  // duration, which a single-file build accepts rather than failing every training.
  if (!start) return trainInThread(data);
  return new Promise<string>((resolve, reject) => {
    const worker = new Worker(start.entry, {
      eval: start.isCode,
      workerData: data,
      // The library may print; nothing it says belongs in the service's output.
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const settle = (error: Error | null, model?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(model ?? '');
    };
    const timer = setTimeout(() => settle(new Error(`Training took longer than ${timeoutMs} ms and was stopped.`)), timeoutMs);
    const onAbort = () => settle(new Error(CANCELLED));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (answer: TrainingAnswer) => (answer.ok ? settle(null, answer.model) : settle(new Error(answer.message))));
    worker.on('error', (error: Error & { code?: string }) =>
      settle(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new Error(`Training needed more than its memory bound of ${memoryMb} MB and was stopped; train with fewer phrases or raise the bound.`)
          : new Error(`Training failed: ${error.message}`),
      ),
    );
    worker.on('exit', (code) => settle(new Error(`Training stopped without a model (the training thread exited with code ${code}).`)));
  });
}

interface WorkerStart {
  entry: URL | string;
  /** `entry` is code to evaluate rather than a file. */
  isCode: boolean;
}

let cachedStart: WorkerStart | null | undefined;

/**
 * How to start the training thread. The build has training-worker.js beside this module. Run from
 * the TypeScript sources (development, and the tests, whose bundles keep each module's source URL)
 * there is training-worker.ts instead, started through the TypeScript loader registered inside the
 * thread (a loader given as `--import` in the worker's execArgv does not apply to it on Node 20).
 * A single-file bundle has neither.
 */
function workerStart(): WorkerStart | null {
  if (cachedStart !== undefined) return cachedStart;
  const compiled = new URL('./training-worker.js', import.meta.url);
  const source = new URL('./training-worker.ts', import.meta.url);
  if (isFile(compiled)) cachedStart = { entry: compiled, isCode: false };
  else if (isFile(source)) {
    const loader = tsLoader();
    cachedStart = loader
      ? { entry: `import(${JSON.stringify(loader)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`, isCode: true }
      : null;
  } else cachedStart = null;
  return cachedStart;
}

function isFile(url: URL): boolean {
  try {
    return url.protocol === 'file:' && existsSync(fileURLToPath(url));
  } catch {
    return false;
  }
}

function tsLoader(): string | null {
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    return null;
  }
}
