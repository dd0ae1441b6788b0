import { formatTime } from '../../ui';
import type { NlpTraining, TrainingStatus as Status } from './types';

const LOOK: Record<Status, { label: string; tone: 'ok' | 'warn' | 'bad' }> = {
  queued: { label: 'Queued', tone: 'warn' },
  training: { label: 'Training', tone: 'warn' },
  ready: { label: 'Ready', tone: 'ok' },
  failed: { label: 'Failed', tone: 'bad' },
};

/** Which model classifies received texts now, in words. */
function servingLine(training: NlpTraining): string {
  const { status, version, model_version: model } = training;
  if (model === null)
    return status === 'failed'
      ? 'No model: received texts get no intents until a training succeeds.'
      : 'No model yet: received texts get no intents until this training ends.';
  if (model === version) return `The model of version ${version} classifies received texts.`;
  if (status === 'failed') return `The older model of version ${model} still classifies received texts.`;
  return `An older model (version ${model}) serves while version ${version} trains.`;
}

/** A built-in integration's training: its state (polled while it moves), versions and error. */
export function TrainingStatus({ training }: { training: NlpTraining }) {
  const look = LOOK[training.status];
  return (
    <section className="ch-card" aria-labelledby="nlp-training-title">
      <h3 id="nlp-training-title">Training</h3>
      <div role="status" aria-live="polite" data-testid="nlp-training">
        <p className="nlp-training-line">
          <span className={`badge badge-${look.tone}`}>{look.label}</span> <span>{servingLine(training)}</span>
        </p>
        {training.status === 'failed' && training.error && (
          <p className="message message-error nlp-training-error">
            <span>
              Training of version {training.version} failed: {training.error}
            </span>
          </p>
        )}
      </div>
      <dl className="dl nlp-dl">
        <div className="dl-row">
          <dt>Training data version</dt>
          <dd>{training.version}</dd>
        </div>
        <div className="dl-row">
          <dt>Model in use</dt>
          <dd>{training.model_version === null ? <span className="muted">none</span> : `version ${training.model_version}`}</dd>
        </div>
        <div className="dl-row">
          <dt>Last trained</dt>
          <dd title={training.trained ?? undefined}>{formatTime(training.trained)}</dd>
        </div>
      </dl>
    </section>
  );
}
