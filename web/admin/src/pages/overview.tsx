import { PageHeader } from '../layout';

export function OverviewPage() {
  return <PageHeader title="Overview" />;
}
