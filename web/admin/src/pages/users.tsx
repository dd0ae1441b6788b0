// Users of the account (owners only): list, add (with an initial password the new user must
// change at first sign-in, or a one-time setup link shown once), remove. A member who opens this
// address is told why not.
import { useState, type FormEvent } from 'react';
import { Form } from 'react-aria-components';
import { ApiFailure, api, messageOf } from '../api';
import { PageHeader } from '../layout';
import { useSignedIn } from '../session';
import type { Role, User } from '../types';
import {
  AppDialog,
  Button,
  Cell,
  Column,
  ConfirmDialog,
  CopyButton,
  ErrorMessage,
  Loading,
  Notice,
  Row,
  SelectField,
  Table,
  TableBody,
  TableHeader,
  TextField,
  formatTime,
  toast,
  useLoad,
} from '../ui';
import { MIN_PASSWORD } from './password-form';

const ROLE_OPTIONS = [
  { id: 'member', label: 'Member: channels, conversations, webhooks' },
  { id: 'owner', label: 'Owner: also users and access tokens' },
];

function AddUser({ onAdded }: { onAdded: () => void }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);

  const start = () => {
    setEmail('');
    setRole('member');
    setPassword('');
    setErrors({});
    setGeneral(null);
    setLink(null);
    setOpen(true);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) found.email = 'Enter an e-mail address.';
    if (password !== '' && password.length < MIN_PASSWORD) found.password = `Use at least ${MIN_PASSWORD} characters, or leave it empty for a setup link.`;
    setErrors(found);
    setGeneral(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const user = await api.post('/users', { email: email.trim(), role, ...(password ? { password } : {}) });
      onAdded();
      if (user.setup_link) setLink({ email: user.email, url: user.setup_link });
      else {
        toast(`${user.email} added. Give them the password; they choose their own at first sign-in.`);
        setOpen(false);
      }
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 422 && e.field) setErrors({ [e.field]: e.message });
      else setGeneral(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button variant="primary" onPress={start}>
        Add user
      </Button>
      <AppDialog title={link ? 'Setup link' : 'Add a user'} isOpen={open} onOpenChange={setOpen} isDismissable={!link}>
        {link ? (
          <div className="form">
            <p>
              <strong>{link.email}</strong> was added. Give them this link: it lets them choose a password, works once and expires in 24 hours. It is shown only
              now.
            </p>
            <div className="secret-box">
              <code id="setup-link" data-testid="setup-link">
                {link.url}
              </code>
            </div>
            <CopyButton value={link.url} label="Copy link" variant="primary" fallbackTargetId="setup-link" />
            <div className="dialog-actions">
              <Button onPress={() => setOpen(false)}>Done</Button>
            </div>
          </div>
        ) : (
          <Form className="form" onSubmit={(e) => void submit(e)} validationBehavior="aria">
            <TextField label="E-mail" type="email" value={email} onChange={setEmail} error={errors.email} isRequired autoFocus autoComplete="off" />
            <SelectField label="Role" options={ROLE_OPTIONS} value={role} onChange={(r) => setRole(r as Role)} error={errors.role} />
            <TextField
              label="Initial password (optional)"
              type="password"
              value={password}
              onChange={setPassword}
              error={errors.password}
              autoComplete="new-password"
              description={`At least ${MIN_PASSWORD} characters; the user must change it at first sign-in. Leave it empty to get a one-time setup link instead.`}
            />
            {general ? (
              <p className="message message-error" role="alert">
                {general}
              </p>
            ) : null}
            <div className="dialog-actions">
              <Button onPress={() => setOpen(false)}>Cancel</Button>
              <Button variant="primary" type="submit" isPending={busy}>
                Add user
              </Button>
            </div>
          </Form>
        )}
      </AppDialog>
    </>
  );
}

function RemoveUser({ user, onRemoved }: { user: User; onRemoved: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="quiet" onPress={() => setOpen(true)} aria-label={`Remove ${user.email}`}>
        Remove
      </Button>
      <ConfirmDialog
        title={`Remove ${user.email}?`}
        isOpen={open}
        onOpenChange={setOpen}
        confirmLabel="Remove user"
        danger
        onConfirm={async () => {
          await api.delete('/users/{id}', { params: { id: user.id } });
          toast(`${user.email} removed.`);
          onRemoved();
        }}
      >
        <p>They are signed out everywhere and can no longer sign in. Channels, tokens and messages stay with the account.</p>
      </ConfirmDialog>
    </>
  );
}

function UsersTable() {
  const { user: me } = useSignedIn();
  const users = useLoad((signal) => api.get('/users', { signal }), []);
  const reload = () => void users.reload();
  return (
    <>
      <PageHeader title="Users" description="People who sign in to this account.">
        <AddUser onAdded={reload} />
      </PageHeader>
      {users.error ? <ErrorMessage onRetry={reload}>{users.error}</ErrorMessage> : null}
      {!users.data && !users.error ? <Loading label="Loading users…" /> : null}
      {users.data ? (
        <Table aria-label="Users">
          <TableHeader>
            <Column isRowHeader>E-mail</Column>
            <Column>Role</Column>
            <Column>Added</Column>
            <Column>Sign-in</Column>
            <Column>
              <span className="visually-hidden">Actions</span>
            </Column>
          </TableHeader>
          <TableBody items={users.data.data}>
            {(user) => (
              <Row id={user.id}>
                <Cell>
                  {user.email}
                  {user.id === me.id ? <span className="muted"> (you)</span> : null}
                </Cell>
                <Cell>
                  <span className={`badge ${user.role === 'owner' ? 'badge-mode-shared' : ''}`}>{user.role}</span>
                </Cell>
                <Cell>{formatTime(user.created_at)}</Cell>
                <Cell textValue={user.must_change_password ? 'must change password' : 'none'}>
                  {user.must_change_password ? <span className="badge badge-warn">must change password</span> : <span className="muted">—</span>}
                </Cell>
                <Cell>
                  <div className="cell-actions">{user.id === me.id ? null : <RemoveUser user={user} onRemoved={reload} />}</div>
                </Cell>
              </Row>
            )}
          </TableBody>
        </Table>
      ) : null}
    </>
  );
}

export function UsersPage() {
  const { isOwner } = useSignedIn();
  if (!isOwner)
    return (
      <>
        <PageHeader title="Users" />
        <Notice tone="warning">Only an owner can manage users. Ask an owner of your account to add or remove people.</Notice>
      </>
    );
  return <UsersTable />;
}
