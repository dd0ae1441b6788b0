import { PageHeader } from '../layout';

export function CreateChannelPage() {
  return <PageHeader title="New channel" />;
}
