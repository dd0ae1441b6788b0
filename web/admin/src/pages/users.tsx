import { PageHeader } from '../layout';

export function UsersPage() {
  return <PageHeader title="Users" />;
}
