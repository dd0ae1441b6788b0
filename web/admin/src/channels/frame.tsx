// The channel detail page: the channel's header and its tabs. "Details" is this file's own tab;
// the others come from src/channel/routes.tsx and get the loaded channel.
import { useEffect } from 'react';
import { Link as AriaLink } from 'react-aria-components';
import { api } from '../api';
import { channelRoutes } from '../channel/routes';
import { PageHeader } from '../layout';
import { APP_BASE, findRoute, useLocation, useQuery, type RouteProps } from '../router';
import { ErrorMessage, Link, Loading, useLoad } from '../ui';
import type { ChannelPageProps, ChannelRoute } from './channel-route';
import { ChannelDetails } from './details';
import { typeLabelOf, useChannelTypes } from './channel-types';
import { channelPath } from './paths';

function tabOf(route: ChannelRoute): string {
  if (route.tab) return route.tab;
  const parts = route.path.replace(/\/\*$/, '').split('/');
  return parts[parts.length - 1] ?? '';
}

export function ChannelFramePage({ params }: RouteProps) {
  const id = params.id ?? '';
  const { pathname } = useLocation();
  const query = useQuery();
  const types = useChannelTypes();
  const loaded = useLoad((signal) => api.get('/v1/channels/{channel_id}', { params: { channel_id: id }, signal }), [id]);
  const tabTitle = findRoute(channelRoutes, pathname)?.entry.label ?? 'Details';
  const name = loaded.data?.name;
  useEffect(() => {
    if (name) document.title = `${name}: ${tabTitle} · Parley`;
  }, [name, tabTitle]);

  if (loaded.error && !loaded.data)
    return (
      <>
        <PageHeader title="Channel" />
        <ErrorMessage onRetry={() => void loaded.reload()}>{loaded.error}</ErrorMessage>
        <p>
          <Link href={`${APP_BASE}/channels`}>Back to channels</Link>
        </p>
      </>
    );
  if (!loaded.data || !types) return <Loading label="Loading the channel…" />;

  const channel = loaded.data;
  const match = findRoute(channelRoutes, pathname);
  const base = channelPath(channel.id);
  const tabs = [
    { href: base, label: 'Details', current: !match },
    ...channelRoutes.map((r) => ({ href: channelPath(channel.id, tabOf(r)), label: r.label, current: match?.entry === r })),
  ];
  const props: ChannelPageProps = { channel, reload: loaded.reload, params: match?.params ?? { id }, query };
  const Page = match?.entry.Component;

  return (
    <>
      <p className="breadcrumb">
        <Link href={`${APP_BASE}/channels`}>Channels</Link> <span aria-hidden="true">/</span>
      </p>
      <PageHeader
        title={channel.name}
        description={
          <>
            <span className="badge">{typeLabelOf(types, channel.type, true)}</span>{' '}
            {channel.mode ? <span className={`badge badge-mode-${channel.mode}`}>{channel.mode}</span> : null} <span className="muted">id {channel.id}</span>
          </>
        }
      />
      <nav aria-label="Channel" className="tabs">
        <ul>
          {tabs.map((tab) => (
            <li key={tab.href}>
              <AriaLink href={tab.href} className="tab" aria-current={tab.current ? 'page' : undefined}>
                {tab.label}
              </AriaLink>
            </li>
          ))}
        </ul>
      </nav>
      <section className="tab-panel" aria-label={match ? match.entry.label : 'Details'}>
        {Page ? <Page {...props} /> : <ChannelDetails {...props} />}
      </section>
    </>
  );
}
