// Overview: for each channel, messages sent and received and webhook deliveries failed over the
// last 24 hours, as numbers and a small hourly chart; the account's totals first.
import { useEffect } from 'react';
import { api } from '../api';
import { typeLabelOf, useChannelTypes } from '../channels/channel-types';
import { channelPath } from '../channels/paths';
import { PageHeader } from '../layout';
import { APP_BASE } from '../router';
import type { HourCounts, OverviewChannel } from '../types';
import { Button, ButtonLink, ErrorMessage, Link, Loading, formatTime, useLoad } from '../ui';
import { HourlyChart } from './chart';

const REFRESH_MS = 60_000;

function Stats({ sent, received, failed }: { sent: number; received: number; failed: number }) {
  return (
    <div className="stats">
      <div className="stat stat-sent">
        <span className="stat-value">{sent.toLocaleString()}</span>
        <span className="stat-label">sent</span>
      </div>
      <div className="stat stat-received">
        <span className="stat-value">{received.toLocaleString()}</span>
        <span className="stat-label">received</span>
      </div>
      <div className="stat stat-failed">
        <span className="stat-value">{failed.toLocaleString()}</span>
        <span className="stat-label">deliveries failed</span>
      </div>
    </div>
  );
}

/** The hourly buckets of all channels added up. */
function totals(channels: OverviewChannel[]): HourCounts[] {
  const byHour = new Map<string, HourCounts>();
  for (const channel of channels)
    for (const h of channel.hourly) {
      const at = byHour.get(h.hour) ?? { hour: h.hour, sent: 0, received: 0, deliveries_failed: 0 };
      at.sent += h.sent;
      at.received += h.received;
      at.deliveries_failed += h.deliveries_failed;
      byHour.set(h.hour, at);
    }
  return [...byHour.values()].sort((a, b) => a.hour.localeCompare(b.hour));
}

function Legend() {
  return (
    <ul className="legend" aria-label="Chart colours">
      <li>
        <span className="legend-swatch legend-sent" aria-hidden="true" />
        Sent
      </li>
      <li>
        <span className="legend-swatch legend-received" aria-hidden="true" />
        Received
      </li>
      <li>
        <span className="legend-swatch legend-failed" aria-hidden="true" />
        Failed webhook deliveries
      </li>
    </ul>
  );
}

export function OverviewPage() {
  const overview = useLoad((signal) => api.get('/overview', { signal }), []);
  const types = useChannelTypes();
  const data = overview.data;
  const { reload } = overview;

  // Read again every minute while the page is in view, so an open overview stays current.
  useEffect(() => {
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload]);

  return (
    <>
      <PageHeader
        title="Overview"
        description={data ? `The last 24 hours, ${formatTime(data.since)} to ${formatTime(data.until)}.` : 'The last 24 hours of every channel.'}
      >
        <Button onPress={() => void overview.reload()} isPending={overview.loading && data !== undefined}>
          Refresh
        </Button>
      </PageHeader>
      {overview.error ? <ErrorMessage onRetry={() => void overview.reload()}>{overview.error}</ErrorMessage> : null}
      {!data && !overview.error ? <Loading label="Loading the last day…" /> : null}
      {data && data.channels.length === 0 ? (
        <div className="section">
          <h2>No channels yet</h2>
          <p>Create a channel to start sending and receiving messages.</p>
          <ButtonLink variant="primary" href={`${APP_BASE}/channels/new`}>
            New channel
          </ButtonLink>
        </div>
      ) : null}
      {data && data.channels.length > 0 ? (
        <>
          <section className="section" aria-labelledby="totals-title">
            <h2 id="totals-title">All channels</h2>
            <Stats
              sent={data.channels.reduce((s, c) => s + c.sent, 0)}
              received={data.channels.reduce((s, c) => s + c.received, 0)}
              failed={data.channels.reduce((s, c) => s + c.deliveries_failed, 0)}
            />
            <HourlyChart hours={totals(data.channels)} label="All channels" width={900} height={150} />
            <Legend />
          </section>
          <h2>By channel</h2>
          <ul className="cards" aria-label="Channels">
            {data.channels.map((channel) => (
              <li key={channel.id} className="card">
                <h3>
                  <Link href={channelPath(channel.id)}>{channel.name}</Link>
                </h3>
                <p className="muted">
                  {typeLabelOf(types, channel.type, true)}
                  {channel.mode && channel.mode !== 'production' ? ` · ${channel.mode}` : ''}
                </p>
                <Stats sent={channel.sent} received={channel.received} failed={channel.deliveries_failed} />
                <HourlyChart hours={channel.hourly} label={channel.name} />
                {channel.deliveries_failed > 0 ? (
                  <p>
                    <Link href={channelPath(channel.id, 'webhook')}>See the failed deliveries</Link>
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
