// Who is signed in: the user, the account and the CSRF token of the session cookie. A 401 from
// any request ends it and sends the user to sign-in, back to the same page afterwards.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiFailure, api, setCsrfToken, setUnauthorizedHandler } from './api';
import { APP_BASE, useLocation, useNavigate } from './router';
import type { Account, SessionInfo, User } from './types';

export type SessionState = { status: 'loading' } | { status: 'signed-out'; error?: string } | ({ status: 'signed-in' } & SessionInfo);

interface SessionValue {
  state: SessionState;
  /** Takes the answer of sign-in, setup or a session check. */
  signedIn: (info: SessionInfo) => void;
  signOut: () => Promise<void>;
  /** Reads the session again (after a password change, for example). */
  refresh: () => Promise<void>;
}

const SessionContext = createContext<SessionValue | null>(null);

export const SIGN_IN_PATH = `${APP_BASE}/sign-in`;

/** The sign-in path that comes back to `returnTo` afterwards. */
export function signInPath(returnTo?: string): string {
  if (!returnTo || returnTo.startsWith(SIGN_IN_PATH)) return SIGN_IN_PATH;
  return `${SIGN_IN_PATH}?next=${encodeURIComponent(returnTo)}`;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const navigate = useNavigate();
  const location = useLocation();

  const signedIn = useCallback((info: SessionInfo) => {
    setCsrfToken(info.csrf_token);
    setState({ status: 'signed-in', ...info });
  }, []);

  const refresh = useCallback(async () => {
    try {
      // 204 without a session: no error answer for the browser to log on the sign-in and setup pages.
      const info = await api.get('/session/state', { expectUnauthorized: true });
      if (info) signedIn(info);
      else {
        setCsrfToken(null);
        setState({ status: 'signed-out' });
      }
    } catch (error) {
      setCsrfToken(null);
      if (error instanceof ApiFailure && error.status === 401) setState({ status: 'signed-out' });
      else setState({ status: 'signed-out', error: error instanceof Error ? error.message : String(error) });
    }
  }, [signedIn]);

  const signOut = useCallback(async () => {
    try {
      await api.delete('/session', { expectUnauthorized: true });
    } finally {
      setCsrfToken(null);
      setState({ status: 'signed-out' });
      navigate(SIGN_IN_PATH);
    }
  }, [navigate]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  // A request that finds the session gone: back to sign-in, then here again.
  const returnTo = `${location.pathname}${location.search}`;
  useEffect(() => {
    setUnauthorizedHandler(() => {
      setCsrfToken(null);
      setState({ status: 'signed-out', error: 'Your session has ended. Sign in again.' });
      navigate(signInPath(returnTo), { replace: true });
    });
    return () => setUnauthorizedHandler(null);
  }, [navigate, returnTo]);

  const value = useMemo(() => ({ state, signedIn, signOut, refresh }), [state, signedIn, signOut, refresh]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside <SessionProvider>');
  return value;
}

/** The signed-in user and account; only for pages shown behind the session. */
export function useSignedIn(): { user: User; account: Account; csrfToken: string; isOwner: boolean } {
  const { state } = useSession();
  if (state.status !== 'signed-in') throw new Error('useSignedIn without a session');
  return { user: state.user, account: state.account, csrfToken: state.csrf_token, isOwner: state.user.role === 'owner' };
}
