// The app: router, session, and the page the path names, behind sign-in unless it is public.
import { useEffect } from 'react';
import { Layout } from './layout';
import { ForcedPasswordPage } from './pages/forced-password';
import { NotFoundPage } from './pages/not-found';
import { findRoute, Redirect, Router, useLocation, useQuery } from './router';
import { routes } from './routes';
import { SessionProvider, signInPath, useSession } from './session';
import { ErrorMessage, Loading, Toasts } from './ui';
import { PageErrorBoundary } from './ui/error-boundary';

function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Parley`;
  }, [title]);
}

function CurrentPage() {
  const { pathname, search } = useLocation();
  const query = useQuery();
  const { state, refresh } = useSession();
  const found = findRoute(routes, pathname);
  useTitle(found?.entry.title ?? 'Not found');

  if (found?.entry.public) {
    const Page = found.entry.Component;
    return <Page params={found.params} query={query} />;
  }
  if (state.status === 'loading') return <Loading label="Loading Parley…" />;
  if (state.status === 'signed-out') {
    if (state.error && !state.error.startsWith('Your session'))
      return (
        <main id="main" className="auth-page">
          <ErrorMessage onRetry={() => void refresh()}>{state.error}</ErrorMessage>
        </main>
      );
    return <Redirect to={signInPath(`${pathname}${search}`)} />;
  }
  if (state.user.must_change_password) return <ForcedPasswordPage />;
  const Page = found?.entry.Component;
  return (
    <Layout>
      <PageErrorBoundary resetKey={pathname}>
        {Page && found ? <Page key={found.entry.path} params={found.params} query={query} /> : <NotFoundPage />}
      </PageErrorBoundary>
    </Layout>
  );
}

export function App() {
  return (
    <Router>
      <SessionProvider>
        <CurrentPage />
        <Toasts />
      </SessionProvider>
    </Router>
  );
}
