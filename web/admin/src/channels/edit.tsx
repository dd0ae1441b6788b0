// Edit a channel: name, mode and its type's fields (secrets only when a new one is typed).
import { api } from '../api';
import { PageHeader } from '../layout';
import { APP_BASE, useNavigate, type RouteProps } from '../router';
import type { UpdateChannelBody } from '../types';
import { ErrorMessage, Link, Loading, toast, useLoad } from '../ui';
import { channelPath } from './paths';
import { ChannelForm } from './form';
import { typeLabelOf, useChannelTypes } from './channel-types';

export function EditChannelPage({ params }: RouteProps) {
  const id = params.id ?? '';
  const navigate = useNavigate();
  const types = useChannelTypes();
  const loaded = useLoad((signal) => api.get('/v1/channels/{channel_id}', { params: { channel_id: id }, signal }), [id]);

  if (loaded.error) return <ErrorMessage onRetry={() => void loaded.reload()}>{loaded.error}</ErrorMessage>;
  if (!loaded.data || !types) return <Loading label="Loading the channel…" />;
  const channel = loaded.data;

  const save = async (body: Record<string, unknown>) => {
    if (Object.keys(body).length > 0) await api.patch('/v1/channels/{channel_id}', body as UpdateChannelBody, { params: { channel_id: channel.id } });
    toast('Channel saved.');
    navigate(channelPath(channel.id));
  };

  return (
    <>
      <p className="breadcrumb">
        <Link href={`${APP_BASE}/channels`}>Channels</Link> <span aria-hidden="true">/</span> <Link href={channelPath(channel.id)}>{channel.name}</Link>{' '}
        <span aria-hidden="true">/</span>
      </p>
      <PageHeader title={`Edit ${channel.name}`} description={typeLabelOf(types, channel.type)} />
      <div className="section">
        <ChannelForm type={channel.type} channel={channel} submitLabel="Save changes" onSubmit={save} onCancel={() => navigate(channelPath(channel.id))} />
      </div>
    </>
  );
}
