// New channel: pick the type, then fill in its form. The type is in the URL (?type=mobile), so a
// link can open the form of one type.
import { ApiFailure, api } from '../api';
import { PageHeader } from '../layout';
import { APP_BASE, useNavigate, useQuery } from '../router';
import type { CreateChannelBody } from '../types';
import { SelectField, toast } from '../ui';
import { useChannelTypes } from './channel-types';
import { channelPath } from './paths';
import { ChannelForm } from './form';

export function CreateChannelPage() {
  const query = useQuery();
  const navigate = useNavigate();
  const types = useChannelTypes();
  const wanted = query.get('type');
  const info = types?.find((t) => t.type === wanted) ?? null;
  const type = info?.type ?? null;

  const create = async (body: Record<string, unknown>) => {
    const channel = await api.post('/v1/channels', body as CreateChannelBody).catch((error: unknown) => {
      if (error instanceof ApiFailure && error.status === 502)
        throw new ApiFailure(502, '502', [{ message: `The platform could not be reached to check the credentials: ${error.message} Try again in a moment.` }]);
      throw error;
    });
    toast(`Channel “${channel.name}” created.`);
    navigate(channelPath(channel.id));
  };

  return (
    <>
      <PageHeader title="New channel" description="A channel is one connection to a messaging platform." />
      <div className="section">
        <div className="form">
          <SelectField
            label="Channel type"
            options={(types ?? []).map((t) => ({ id: t.type, label: t.label }))}
            value={type}
            onChange={(t) => navigate(`${APP_BASE}/channels/new?type=${t}`, { replace: true })}
            isRequired
          />
        </div>
      </div>
      {info && type ? (
        <div className="section">
          <h2>{info.label}</h2>
          <ChannelForm key={type} type={type} submitLabel="Create channel" onSubmit={create} onCancel={() => navigate(`${APP_BASE}/channels`)} />
        </div>
      ) : (
        <p className="muted">Choose a type to see the fields it needs.</p>
      )}
    </>
  );
}
