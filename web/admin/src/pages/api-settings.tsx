import { PageHeader } from '../layout';

export function ApiSettingsPage() {
  return <PageHeader title="API settings" />;
}
