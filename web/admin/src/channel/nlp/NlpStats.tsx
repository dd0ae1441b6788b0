import { formatTime } from '../../ui';
import type { NlpStats as Stats } from './types';

/** What the engine did with received texts, counted by every instance of the server. */
export function NlpStats({ stats }: { stats: Stats }) {
  return (
    <section className="ch-card" aria-labelledby="nlp-stats-title">
      <h3 id="nlp-stats-title">Received texts</h3>
      <dl className="dl nlp-dl" data-testid="nlp-stats">
        <div className="dl-row">
          <dt>Classified</dt>
          <dd>{stats.classified}</dd>
        </div>
        <div className="dl-row">
          <dt>Failed</dt>
          <dd>{stats.failed}</dd>
        </div>
        <div className="dl-row">
          <dt>Timed out</dt>
          <dd>{stats.timed_out}</dd>
        </div>
        <div className="dl-row">
          <dt>Last failure</dt>
          <dd>
            {stats.last_failure ? (
              <>
                <span title={stats.last_failure.at}>{formatTime(stats.last_failure.at)}</span>: {stats.last_failure.message}
              </>
            ) : (
              <span className="muted">none</span>
            )}
          </dd>
        </div>
      </dl>
      <p className="ch-hint">A text that failed or timed out goes out in its message_received event without intents.</p>
    </section>
  );
}
