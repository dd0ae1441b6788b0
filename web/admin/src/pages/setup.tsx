// The one-time setup link (/admin/setup?token=...): the new user picks a password and is signed in.
import { useState, type FormEvent } from 'react';
import { Form } from 'react-aria-components';
import { ApiFailure, api, messageOf } from '../api';
import { APP_BASE, useNavigate, useQuery } from '../router';
import { useSession } from '../session';
import { Button, Link, TextField } from '../ui';
import { MIN_PASSWORD } from './password-form';

export function SetupPage() {
  const { signedIn } = useSession();
  const navigate = useNavigate();
  const token = useQuery().get('token') ?? '';
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (password.length < MIN_PASSWORD) found.password = `Use at least ${MIN_PASSWORD} characters.`;
    else if (repeat !== password) found.repeat = 'The two passwords differ.';
    setErrors(found);
    setError(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const info = await api.post('/setup', { token, password }, { expectUnauthorized: true });
      signedIn(info);
      navigate(`${APP_BASE}/`, { replace: true });
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 422 && e.field === 'password') setErrors({ password: e.message });
      else if (e instanceof ApiFailure && (e.status === 401 || e.status === 404 || e.status === 410 || (e.status === 422 && e.field === 'token')))
        setError('This setup link is not valid any more: it was used already or is older than 24 hours. Ask an owner of your account for a new one.');
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
        <h1>Set your password</h1>
        {token ? (
          <Form className="form" onSubmit={(e) => void submit(e)} validationBehavior="aria">
            <p>Choose the password you will sign in with. This link works once.</p>
            {/* Only for the browser's password manager, which saves the new password under this name. */}
            <TextField
              label="E-mail"
              type="email"
              name="username"
              autoComplete="username"
              value={email}
              onChange={setEmail}
              autoFocus
              description="The address you sign in with, as the message with this link says; your browser can save the password under it."
            />
            <TextField
              label="Password"
              type="password"
              name="new-password"
              autoComplete="new-password"
              value={password}
              onChange={setPassword}
              error={errors.password}
              description={`At least ${MIN_PASSWORD} characters.`}
              isRequired
            />
            <TextField
              label="Password again"
              type="password"
              autoComplete="new-password"
              value={repeat}
              onChange={setRepeat}
              error={errors.repeat}
              isRequired
            />
            {error ? (
              <p className="message message-error" role="alert">
                {error}
              </p>
            ) : null}
            <Button variant="primary" type="submit" isPending={busy} className="button-wide">
              Set password and sign in
            </Button>
          </Form>
        ) : (
          <p className="message message-error" role="alert">
            This link has no setup token. Open the whole link you were given.
          </p>
        )}
        <p className="auth-help">
          Have a password already? <Link href={`${APP_BASE}/sign-in`}>Sign in</Link>
        </p>
      </main>
    </div>
  );
}
