import { useState } from 'react';
import { messageOf } from '../../api';
import { formatTime } from '../../ui';
import { channelApi } from '../channel-api';
import type { Message } from '../types';

type Chain = NonNullable<Message['failover']>;

const MOVED_ON: Record<string, string> = { failed: 'failed', not_delivered: 'not delivered in time', not_read: 'not read in time' };

/** The failover link a step's message carries in its metadata (docs/failover.md), if any. */
export function failoverLinkOf(message: Message): { message_id: string; step: number } | undefined {
  const link = message.metadata?.failover as { message_id?: unknown; step?: unknown } | undefined;
  if (!link || typeof link.message_id !== 'string' || typeof link.step !== 'number') return undefined;
  return { message_id: link.message_id, step: link.step };
}

/**
 * A sent message that is a step of a failover chain: a disclosure that reads the chain (Get
 * Message of its first message) when opened, and shows every step with its channel, state and
 * why the chain moved on.
 */
export function FailoverChain({ link }: { link: { message_id: string; step: number } }) {
  const [chain, setChain] = useState<Chain | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async () => {
    try {
      const first = await channelApi.message(link.message_id);
      setChain(first.failover ?? null);
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    }
  };

  return (
    <details className="ch-failover" data-testid="failover" onToggle={(e) => (e.currentTarget.open ? void load() : undefined)}>
      <summary>Failover step {link.step + 1}</summary>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {chain && (
        <>
          <p className="ch-muted" data-testid="failover-outcome">
            Outcome: {chain.outcome}
          </p>
          <ol className="ch-failover-steps" aria-label="Failover steps">
            {chain.steps.map((s) => (
              <li key={s.step} data-testid="failover-step" data-state={s.state} aria-current={s.step === link.step ? 'step' : undefined}>
                <strong>{s.channel.type}</strong> {s.state}
                {s.when && (
                  <span className="ch-muted">
                    {' '}
                    (if the step before{' '}
                    {s.when.condition === 'failed'
                      ? 'failed'
                      : `was ${s.when.condition === 'not_read' ? 'not read' : 'not delivered'} within ${s.when.within} s`}
                    )
                  </span>
                )}
                {s.started && (
                  <span className="ch-muted">
                    {' '}
                    · started <time dateTime={s.started}>{formatTime(s.started)}</time>
                  </span>
                )}
                {s.moved_on && <span className="ch-muted"> · moved on: {MOVED_ON[s.moved_on] ?? s.moved_on}</span>}
              </li>
            ))}
          </ol>
        </>
      )}
    </details>
  );
}
