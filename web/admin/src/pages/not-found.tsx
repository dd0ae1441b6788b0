import { PageHeader } from '../layout';
import { APP_BASE } from '../router';
import { Link } from '../ui';

export function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no page at this address. Go to the <Link href={`${APP_BASE}/`}>overview</Link>.
      </p>
    </>
  );
}
