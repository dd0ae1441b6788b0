import { useCallback, useState } from 'react';
import { messageOf, type Page } from '../../api';
import { Button, SelectField, formatTime } from '../../ui';
import { channelApi } from '../channel-api';
import { ConfirmButton, formatSeconds, type Notice } from '../bits';
import { usePoll } from '../use-poll';
import { DELIVERY_STATUSES, type Delivery, type DeliveryStatus } from '../types';

const PAGE = 20;
type Filter = DeliveryStatus | 'all';

/**
 * The delivery log: one block per delivery (event, state, next try) with every attempt below it
 * (time, status code, duration, response excerpt or error). Read again every 2 s while a shown
 * delivery is pending, else every 5 s for new ones, and at once after a test event or redelivery.
 */
export function DeliveryLog({ channelId, version, bump, notify }: { channelId: string; version: number; bump: () => void; notify: (n: Notice) => void }) {
  const [filter, setFilter] = useState<Filter>('all');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<Page<Delivery> | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const load = useCallback(
    async (signal?: AbortSignal) => {
      try {
        const result = await channelApi.deliveries(channelId, { status: filter === 'all' ? undefined : filter, max: PAGE, offset }, signal);
        setPage(result);
        setLoadError(null);
      } catch (error) {
        if (!signal?.aborted) setLoadError(messageOf(error));
      }
    },
    [channelId, filter, offset],
  );

  const pending = page?.items.some((d) => d.status === 'pending') ?? false;
  // Key the poll on what it shows, so a new filter, page or action starts a fresh poll at once.
  usePoll(load, pending ? 2000 : 5000, { key: `${channelId}/${filter}/${offset}/${version}` });

  const redeliver = async (delivery: Delivery) => {
    try {
      await channelApi.redeliver(channelId, delivery.id);
      notify({ tone: 'ok', text: `Delivery ${delivery.id} is being sent again.` });
      bump();
    } catch (error) {
      notify({ tone: 'error', text: messageOf(error) });
    }
  };
  const redeliverFailed = async () => {
    const { redelivered } = await channelApi.redeliverFailed(channelId);
    notify({ tone: 'ok', text: redelivered === 1 ? '1 failed delivery is being sent again.' : `${redelivered} failed deliveries are being sent again.` });
    bump();
  };

  const total = page?.total ?? 0;
  return (
    <section className="ch-card" aria-labelledby="ch-log-title">
      <div className="ch-toolbar">
        <h3 id="ch-log-title">Delivery log</h3>
        <SelectField
          label="Status"
          value={filter}
          options={[{ id: 'all', label: 'All' }, ...DELIVERY_STATUSES.map((st) => ({ id: st, label: st }))]}
          onChange={(value) => {
            setFilter(value as Filter);
            setOffset(0);
          }}
        />
        <Button onPress={() => void load()}>Refresh</Button>
        <ConfirmButton label="Redeliver all failed" title="Redeliver all failed deliveries?" confirmLabel="Redeliver" onConfirm={redeliverFailed}>
          Every delivery of this channel that used all its tries is sent again now, with the same event id, and gets a new cycle of retries.
        </ConfirmButton>
      </div>
      {loadError && (
        <p className="ch-error" role="alert">
          {loadError}
        </p>
      )}
      {page && page.items.length === 0 && <p className="ch-empty">{filter === 'all' ? 'No deliveries yet.' : `No ${filter} deliveries.`}</p>}
      <ol className="ch-deliveries" aria-label="Deliveries">
        {page?.items.map((d) => (
          <li key={d.id} className="ch-delivery" data-status={d.status} data-testid="delivery">
            <div className="ch-delivery-head">
              <span className={`ch-badge ch-badge-${d.status}`}>{d.status}</span>
              <strong>{d.event.type}</strong>
              <span className="ch-muted">
                created {formatTime(d.created)}
                {d.status === 'pending' && d.next_attempt ? `, next try ${formatTime(d.next_attempt)}` : ''}
              </span>
              {d.status !== 'pending' && (
                <Button className="ch-small" onPress={() => void redeliver(d)} aria-label={`Redeliver ${d.event.type} delivery ${d.id}`}>
                  Redeliver
                </Button>
              )}
            </div>
            {d.attempts.length === 0 ? (
              <p className="ch-muted">Not tried yet.</p>
            ) : (
              <table className="ch-table">
                <caption className="ch-sr-only">Attempts of delivery {d.id}</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Status code</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Response</th>
                  </tr>
                </thead>
                <tbody>
                  {d.attempts.map((a) => (
                    <tr key={a.id}>
                      <td>
                        <time dateTime={a.attempted}>{formatSeconds(a.attempted)}</time>
                      </td>
                      <td className={a.status_code !== null && a.status_code < 300 ? 'ch-ok' : 'ch-bad'}>{a.status_code ?? 'none'}</td>
                      <td>{a.duration_ms} ms</td>
                      <td>
                        <code className="ch-excerpt">{a.error ? a.error : (a.response_excerpt ?? '').slice(0, 300)}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </li>
        ))}
      </ol>
      {total > PAGE && (
        <nav className="ch-pager" aria-label="Delivery pages">
          <Button isDisabled={offset === 0} onPress={() => setOffset(Math.max(0, offset - PAGE))}>
            Newer
          </Button>
          <span>
            {offset + 1}–{Math.min(offset + PAGE, total)} of {total}
          </span>
          <Button isDisabled={offset + PAGE >= total} onPress={() => setOffset(offset + PAGE)}>
            Older
          </Button>
        </nav>
      )}
    </section>
  );
}
