// A small client router: paths under /admin/..., the History API, patterns with :params and a
// trailing `*`. React Aria's RouterProvider makes its links and buttons with `href` use it.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ComponentType, type ReactNode } from 'react';
import { RouterProvider } from 'react-aria-components';

export const APP_BASE = '/admin';

export interface Location {
  pathname: string;
  search: string;
}

export interface NavigateOptions {
  replace?: boolean;
}

interface RouterValue {
  location: Location;
  navigate: (to: string, options?: NavigateOptions) => void;
}

const RouterContext = createContext<RouterValue | null>(null);

function current(): Location {
  return { pathname: window.location.pathname, search: window.location.search };
}

/** Params a page gets from its route. */
export interface RouteProps {
  params: Record<string, string>;
  query: URLSearchParams;
}

/** One page of the app. */
export interface RouteEntry {
  /** e.g. '/admin/channels/:id'; a trailing '/*' matches the path and anything below it. */
  path: string;
  /** The document title and the page's heading. */
  title: string;
  Component: ComponentType<RouteProps>;
  /** Shown without a session (sign-in, setup link). */
  public?: boolean;
}

/** The params of `pathname` under `pattern`, or null when it does not match. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | null {
  const trim = (p: string) => (p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p);
  const wildcard = pattern.endsWith('/*');
  const patternParts = trim(wildcard ? pattern.slice(0, -2) : pattern).split('/');
  const pathParts = trim(pathname).split('/');
  if (wildcard ? pathParts.length < patternParts.length : pathParts.length !== patternParts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < patternParts.length; i++) {
    const want = patternParts[i] as string;
    const got = pathParts[i] as string;
    if (want.startsWith(':')) {
      if (got === '') return null;
      try {
        params[want.slice(1)] = decodeURIComponent(got);
      } catch {
        return null;
      }
    } else if (want !== got) return null;
  }
  return params;
}

/** The first entry matching `pathname`, with its params. */
export function findRoute<T extends { path: string }>(entries: readonly T[], pathname: string): { entry: T; params: Record<string, string> } | null {
  for (const entry of entries) {
    const params = matchPath(entry.path, pathname);
    if (params) return { entry, params };
  }
  return null;
}

export function Router({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState<Location>(current);

  useEffect(() => {
    const onPop = () => setLocation(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const navigate = useCallback((to: string, options: NavigateOptions = {}) => {
    const url = new URL(to, window.location.href);
    if (url.origin !== window.location.origin) {
      window.location.assign(url.href);
      return;
    }
    const next = `${url.pathname}${url.search}${url.hash}`;
    if (options.replace) window.history.replaceState(null, '', next);
    else window.history.pushState(null, '', next);
    setLocation(current());
    if (!url.hash) window.scrollTo(0, 0);
  }, []);

  const value = useMemo(() => ({ location, navigate }), [location, navigate]);
  return (
    <RouterContext.Provider value={value}>
      <RouterProvider navigate={navigate}>{children}</RouterProvider>
    </RouterContext.Provider>
  );
}

function useRouter(): RouterValue {
  const value = useContext(RouterContext);
  if (!value) throw new Error('useRouter outside <Router>');
  return value;
}

export function useLocation(): Location {
  return useRouter().location;
}

export function useNavigate(): RouterValue['navigate'] {
  return useRouter().navigate;
}

export function useQuery(): URLSearchParams {
  const { search } = useLocation();
  return useMemo(() => new URLSearchParams(search), [search]);
}

/** Navigates once when rendered (a redirect). */
export function Redirect({ to }: { to: string }) {
  const navigate = useNavigate();
  useEffect(() => navigate(to, { replace: true }), [navigate, to]);
  return null;
}
