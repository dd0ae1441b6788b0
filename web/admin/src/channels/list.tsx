import { PageHeader } from '../layout';

export function ChannelsPage() {
  return <PageHeader title="Channels" />;
}
