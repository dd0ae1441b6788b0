// The Details tab: the channel's fields as the API shows them (credentials hidden), the URLs the
// platform needs, the rbm agent, and edit and delete.
import type { ReactNode } from 'react';
import { ButtonLink, CopyButton, Loading } from '../ui';
import type { ChannelPageProps } from './channel-route';
import { DeleteChannel } from './delete';
import { useChannelType } from './channel-types';
import { fieldSpecs, getPath } from './fields';
import { editChannelPath } from './paths';
import { PlatformState } from './platform-state';
import { stateOf } from './state';

export function ChannelDetails({ channel, reload }: ChannelPageProps) {
  const info = useChannelType(channel.type);
  if (!info) return <Loading />;
  const platformUrls = info.platform_urls;
  const state = stateOf(channel, info);
  const rows: { label: string; value: ReactNode }[] = [
    { label: 'Type', value: info.label },
    { label: 'Mode', value: channel.mode ?? 'production' },
    {
      label: 'State',
      value: (
        <>
          <span className={`badge badge-${state.tone}`}>{state.label}</span> <span className="muted">{state.description}</span>
        </>
      ),
    },
    { label: 'Channel id', value: <span className="mono">{channel.id}</span> },
  ];
  for (const field of fieldSpecs(info)) {
    if (field.kind === 'json') {
      const email = getPath(channel, `${field.path}.client_email`);
      rows.push({
        label: field.view_label ?? field.label,
        value: typeof email === 'string' ? <span className="mono">{email}</span> : <span className="muted">not set</span>,
      });
      continue;
    }
    if (field.kind === 'secret' && platformUrls.some((u) => u.path === field.path)) continue;
    if (field.kind === 'secret') {
      rows.push({
        label: field.label,
        value: getPath(channel, field.path) ? <span className="muted">set (hidden)</span> : <span className="muted">not set</span>,
      });
      continue;
    }
    const value = (field.view_paths ?? [field.path]).map((p) => getPath(channel, p)).find((v) => v !== undefined && v !== null);
    // Optional groups (the rbm agent's profile and launch answers) show only what was given.
    if (field.group !== undefined && value === undefined) continue;
    const text = value === undefined ? undefined : typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value);
    rows.push({ label: field.view_label ?? field.label, value: text === undefined ? <span className="muted">—</span> : text });
  }
  for (const field of info.view_fields) {
    const value = getPath(channel, field.path);
    if (typeof value === 'string' && value) rows.push({ label: field.label, value });
  }
  rows.push({
    label: 'Webhook',
    value: channel.webhook ? <span className="mono">{channel.webhook.url}</span> : <span className="muted">none (set one in the Webhook tab)</span>,
  });
  const urls = platformUrls
    .map((u) => ({ ...u, value: getPath(channel, u.path) }))
    .filter((u): u is typeof u & { value: string } => typeof u.value === 'string');
  const platform = info.platform_state;

  return (
    <>
      <div className="section">
        <div className="page-header">
          <h2>Channel</h2>
          <div className="page-actions">
            <ButtonLink href={editChannelPath(channel.id)}>Edit channel</ButtonLink>
            <DeleteChannel channel={channel} />
          </div>
        </div>
        <dl className="dl">
          {rows.map((row) => (
            <div key={row.label} className="dl-row">
              <dt>{row.label}</dt>
              <dd>{row.value}</dd>
            </div>
          ))}
        </dl>
      </div>
      {platform?.panel ? <PlatformState channel={channel} platform={platform} panel={platform.panel} reload={reload} /> : null}
      {urls.length > 0 ? (
        <div className="section">
          <h2>URLs for the platform</h2>
          {urls.map((u, i) => (
            <div key={u.path} className="field platform-url">
              <span className="field-label" id={`platform-url-${i}`}>
                {u.label}
              </span>
              <div className="secret-box">
                <code id={`platform-url-value-${i}`} aria-labelledby={`platform-url-${i}`}>
                  {u.value}
                </code>
                <CopyButton value={u.value} label={u.copy_label ?? 'Copy URL'} fallbackTargetId={`platform-url-value-${i}`} />
              </div>
            </div>
          ))}
        </div>
      ) : null}
    </>
  );
}
