// Sign-in with e-mail and password. Wrong credentials and the throttle (429, with how long to
// wait) are said in words; afterwards the user lands where they were going.
import { useState, type FormEvent } from 'react';
import { Form } from 'react-aria-components';
import { ApiFailure, request, messageOf } from '../api';
import { APP_BASE, Redirect, useNavigate, useQuery } from '../router';
import { useSession } from '../session';
import type { SessionInfo } from '../types';
import { Button, Loading, TextField } from '../ui';

/** Only a path inside the app is a place to go back to. */
export function safeNext(next: string | null): string {
  if (next && next.startsWith(`${APP_BASE}/`) && !next.startsWith('//') && !next.startsWith(`${APP_BASE}/sign-in`)) return next;
  return `${APP_BASE}/`;
}

function waitText(seconds: number | undefined): string {
  if (!seconds) return 'a few minutes';
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

export function SignInPage() {
  const { state, signedIn } = useSession();
  const navigate = useNavigate();
  const query = useQuery();
  const next = safeNext(query.get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  if (state.status === 'loading') return <Loading />;
  if (state.status === 'signed-in' && !busy) return <Redirect to={next} />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!email.trim()) found.email = 'Enter your e-mail address.';
    if (!password) found.password = 'Enter your password.';
    setFieldErrors(found);
    setError(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const info = await request<SessionInfo>('/session', { method: 'POST', body: { email: email.trim(), password }, expectUnauthorized: true });
      signedIn(info);
      navigate(next, { replace: true });
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 429) setError(`Too many sign-in attempts. Wait ${waitText(e.retryAfter)} and try again.`);
      else if (e instanceof ApiFailure && e.status === 422 && e.field) setFieldErrors({ [e.field]: e.message });
      else setError(messageOf(e));
      setBusy(false);
    }
  };

  return (
    <div className="auth-page">
      <main className="auth-card" id="main">
        <p className="auth-brand">
          <span className="brand-mark" aria-hidden="true">
            P
          </span>{' '}
          Parley
        </p>
        <h1>Sign in</h1>
        {state.status === 'signed-out' && state.error ? <p className="message message-info">{state.error}</p> : null}
        <Form className="form" onSubmit={(e) => void submit(e)} validationBehavior="aria">
          <TextField
            label="E-mail"
            type="email"
            name="email"
            autoComplete="username"
            value={email}
            onChange={setEmail}
            error={fieldErrors.email}
            isRequired
            autoFocus
          />
          <TextField
            label="Password"
            type="password"
            name="password"
            autoComplete="current-password"
            value={password}
            onChange={setPassword}
            error={fieldErrors.password}
            isRequired
          />
          {error ? (
            <p className="message message-error" role="alert">
              {error}
            </p>
          ) : null}
          <Button variant="primary" type="submit" isPending={busy} className="button-wide">
            Sign in
          </Button>
        </Form>
        <p className="auth-help">
          Forgot your password? Whoever runs this server can give you a new setup link with <code>parley user reset-password</code>.
        </p>
      </main>
    </div>
  );
}
