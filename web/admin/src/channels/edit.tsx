import { PageHeader } from '../layout';

export function EditChannelPage() {
  return <PageHeader title="Edit channel" />;
}
