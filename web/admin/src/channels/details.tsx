// The Details tab: the channel's fields as the API shows them (credentials hidden), the URLs the
// platform needs, the rbm agent, and edit and delete.
import type { ReactNode } from 'react';
import { ButtonLink, CopyButton } from '../ui';
import type { ChannelPageProps } from './channel-route';
import { DeleteChannel } from './delete';
import { TYPE_SPECS, getPath } from './fields';
import { typeLabel } from './labels';
import { editChannelPath } from './paths';
import { RbmAgent } from './rbm-agent';
import { stateOf } from './state';

/** URLs of the channel that the platform calls (mobile: status and receive webhooks). */
const PLATFORM_URLS: { path: string; label: string; copy?: string }[] = [
  { path: 'provider.status_webhook_url', label: 'Status webhook URL (give it to the SMS provider)' },
  { path: 'provider.receive_webhook_url', label: 'Receive webhook URL (give it to the SMS provider)' },
  { path: 'rbm.webhook_url', label: "Webhook URL (set it as the agent's webhook on the RCS platform)" },
  { path: 'rbm.client_token', label: 'Client token (set it with that webhook URL)', copy: 'Copy token' },
  { path: 'appmsg_business_messages.callback_url', label: "Callback URL, its token included (give it to the platform for the sender id's callbacks)" },
  { path: 'appmsg_business_messages.callback_secret', label: "Callback secret (the callback URL's token)", copy: 'Copy secret' },
  { path: 'provider.mail_webhook_url', label: 'Incoming mail URL (registered with the mail provider by the service)' },
  { path: 'provider.events_webhook_url', label: 'Mail events URL (registered with the mail provider by the service)' },
];

const VIEW_FIELDS: { path: string; label: string }[] = [
  { path: 'socialnet_page.name', label: 'Page' },
  { path: 'socialnet_page.category', label: 'Page category' },
  { path: 'botmsg.name', label: 'Bot name' },
  { path: 'botmsg.username', label: 'Bot username' },
  { path: 'appmsg.name', label: 'Account name' },
  { path: 'appmsg.uri', label: 'Account URI' },
];

export function ChannelDetails({ channel, reload }: ChannelPageProps) {
  const spec = TYPE_SPECS[channel.type];
  const state = stateOf(channel);
  const rows: { label: string; value: ReactNode }[] = [
    { label: 'Type', value: typeLabel(channel.type) },
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
  for (const field of spec.fields) {
    if (field.kind === 'json') {
      const email = getPath(channel, `${field.path}.client_email`);
      rows.push({
        label: field.viewLabel ?? field.label,
        value: typeof email === 'string' ? <span className="mono">{email}</span> : <span className="muted">not set</span>,
      });
      continue;
    }
    if (field.kind === 'secret' && PLATFORM_URLS.some((u) => u.path === field.path)) continue;
    if (field.kind === 'secret') {
      rows.push({
        label: field.label,
        value: getPath(channel, field.path) ? <span className="muted">set (hidden)</span> : <span className="muted">not set</span>,
      });
      continue;
    }
    const value = (field.viewPaths ?? [field.path]).map((p) => getPath(channel, p)).find((v) => v !== undefined && v !== null);
    // Optional groups (the rbm agent's profile and launch answers) show only what was given.
    if (field.group !== undefined && value === undefined) continue;
    const text = value === undefined ? undefined : typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value);
    rows.push({ label: field.viewLabel ?? field.label, value: text === undefined ? <span className="muted">—</span> : text });
  }
  for (const field of VIEW_FIELDS) {
    const value = getPath(channel, field.path);
    if (typeof value === 'string' && value) rows.push({ label: field.label, value });
  }
  rows.push({
    label: 'Webhook',
    value: channel.webhook ? <span className="mono">{channel.webhook.url}</span> : <span className="muted">none (set one in the Webhook tab)</span>,
  });
  const urls = PLATFORM_URLS.map((u) => ({ ...u, value: getPath(channel, u.path) })).filter(
    (u): u is { path: string; label: string; copy?: string; value: string } => typeof u.value === 'string',
  );

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
      {channel.type === 'rbm' ? <RbmAgent channel={channel} reload={reload} /> : null}
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
                <CopyButton value={u.value} label={u.copy ?? 'Copy URL'} fallbackTargetId={`platform-url-value-${i}`} />
              </div>
            </div>
          ))}
        </div>
      ) : null}
    </>
  );
}
