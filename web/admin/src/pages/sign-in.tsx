// Sign-in with e-mail and password. Wrong credentials and the throttle (429, with how long to
// wait) are said in words; afterwards the user lands where they were going. A person who is a
// user of several accounts with the same password picks the account, then is signed in to it.
import { useState, type FormEvent } from 'react';
import { Form } from 'react-aria-components';
import { ApiFailure, api, messageOf } from '../api';
import { APP_BASE, Redirect, useNavigate, useQuery } from '../router';
import { useSession } from '../session';
import type { Account } from '../types';
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
  /** The accounts the password opened, when there are several; null before. */
  const [choices, setChoices] = useState<Account[] | null>(null);

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
    await signIn();
  };

  /** Signs in, to `account` when the person chose one. */
  const signIn = async (account?: Account) => {
    setError(null);
    setBusy(true);
    try {
      const body = { email: email.trim(), password, ...(account ? { account_id: account.id } : {}) };
      const info = await api.post('/session', body, { expectUnauthorized: true });
      if ('choose_account' in info) {
        setChoices(info.choose_account);
        setBusy(false);
        return;
      }
      signedIn(info);
      navigate(next, { replace: true });
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 429) setError(`Too many sign-in attempts. Wait ${waitText(e.retryAfter)} and try again.`);
      else if (e instanceof ApiFailure && e.status === 422 && e.field) setFieldErrors({ [e.field]: e.message });
      else setError(messageOf(e));
      setBusy(false);
    }
  };

  if (choices) {
    return (
      <div className="auth-page">
        <main className="auth-card" id="main">
          <p className="auth-brand">
            <span className="brand-mark" aria-hidden="true">
              P
            </span>{' '}
            Parley
          </p>
          <h1>Choose an account</h1>
          <p>You are a user of several accounts with this e-mail address and password. Which one do you want to open?</p>
          <ul className="account-choices" aria-label="Accounts">
            {choices.map((account) => (
              <li key={account.id}>
                <Button variant="primary" className="button-wide" isPending={busy} onPress={() => void signIn(account)}>
                  {`${account.name} (${account.plan} plan, account ${account.id})`}
                </Button>
              </li>
            ))}
          </ul>
          {error ? (
            <p className="message message-error" role="alert">
              {error}
            </p>
          ) : null}
          <Button
            onPress={() => {
              setChoices(null);
              setError(null);
            }}
          >
            Back
          </Button>
        </main>
      </div>
    );
  }

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
