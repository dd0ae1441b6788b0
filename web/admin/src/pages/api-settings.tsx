// API settings: the account's access tokens (never the token itself, except once right after it
// is created), creating and revoking them (owners), and the plan's limits with this hour's use.
import { useState, type FormEvent } from 'react';
import { Form } from 'react-aria-components';
import { ApiFailure, api, messageOf } from '../api';
import { PageHeader } from '../layout';
import { useSignedIn } from '../session';
import type { ApiToken, NewApiToken } from '../types';
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
  Table,
  TableBody,
  TableHeader,
  TextField,
  formatRelative,
  formatTime,
  toast,
  useLoad,
} from '../ui';

function UsagePanel() {
  const usage = useLoad((signal) => api.get('/usage', { signal }), []);
  if (usage.error) return <ErrorMessage onRetry={() => void usage.reload()}>{usage.error}</ErrorMessage>;
  if (!usage.data) return <Loading label="Loading usage…" />;
  const u = usage.data;
  const share = u.hourly_limit > 0 ? Math.min(1, u.used_this_hour / u.hourly_limit) : 0;
  const resets = new Date(new Date(u.window_start).getTime() + 3600_000).toISOString();
  return (
    <section className="section" aria-labelledby="usage-title">
      <h2 id="usage-title">Plan and usage</h2>
      <div className="usage-numbers">
        <div className="stat">
          <span className="stat-value">{u.plan}</span>
          <span className="stat-label">plan</span>
        </div>
        <div className="stat">
          <span className="stat-value">{u.hourly_limit.toLocaleString()}</span>
          <span className="stat-label">requests per hour</span>
        </div>
        <div className="stat">
          <span className="stat-value">{u.concurrency}</span>
          <span className="stat-label">requests at once</span>
        </div>
        <div className="stat">
          <span className="stat-value">{u.used_this_hour.toLocaleString()}</span>
          <span className="stat-label">used this hour</span>
        </div>
        <div className="stat">
          <span className="stat-value">{u.remaining.toLocaleString()}</span>
          <span className="stat-label">remaining</span>
        </div>
      </div>
      <div
        className="meter"
        role="meter"
        aria-label="Requests used this hour"
        aria-valuemin={0}
        aria-valuemax={u.hourly_limit}
        aria-valuenow={u.used_this_hour}
        aria-valuetext={`${u.used_this_hour} of ${u.hourly_limit}`}
      >
        <div className="meter-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      <p className="muted">
        The hour started {formatTime(u.window_start)} and the count resets {formatTime(resets)}. Requests of this app count too.
      </p>
    </section>
  );
}

function CreateToken({ onCreated }: { onCreated: () => void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<NewApiToken | null>(null);

  const reset = () => {
    setName('');
    setError(undefined);
    setGeneral(null);
    setCreated(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError('Give the token a name, such as the program that will use it.');
    if (name.trim().length > 100) return setError('At most 100 characters.');
    setBusy(true);
    setError(undefined);
    setGeneral(null);
    try {
      setCreated(await api.post('/tokens', { name: name.trim() }));
      onCreated();
    } catch (e) {
      if (e instanceof ApiFailure && e.field === 'name') setError(e.message);
      else setGeneral(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button
        variant="primary"
        onPress={() => {
          reset();
          setOpen(true);
        }}
      >
        Create token
      </Button>
      <AppDialog title={created ? 'Your new token' : 'Create an access token'} isOpen={open} onOpenChange={setOpen} isDismissable={!created}>
        {created ? (
          <div className="form">
            <Notice tone="warning">Copy the token now: it is shown only this once. Anyone with it can use the API as your account.</Notice>
            <div className="field">
              <span className="field-label" id="new-token-label">
                Token “{created.name}”
              </span>
              <div className="secret-box">
                <code className="token-value" id="new-token-value" aria-labelledby="new-token-label" data-testid="new-token">
                  {created.access_token}
                </code>
              </div>
              <span className="copy-row">
                <CopyButton value={created.access_token} label="Copy token" variant="primary" fallbackTargetId="new-token-value" />
              </span>
            </div>
            <p className="muted">
              Send it as <code>Authorization: Bearer …</code> with every API request.
            </p>
            <div className="dialog-actions">
              <Button onPress={() => setOpen(false)}>Done</Button>
            </div>
          </div>
        ) : (
          <Form className="form" onSubmit={(e) => void submit(e)} validationBehavior="aria">
            <TextField
              label="Name"
              value={name}
              onChange={setName}
              error={error}
              isRequired
              autoFocus
              description="What uses it, e.g. “order bot” (1 to 100 characters)."
            />
            {general ? (
              <p className="message message-error" role="alert">
                {general}
              </p>
            ) : null}
            <div className="dialog-actions">
              <Button onPress={() => setOpen(false)}>Cancel</Button>
              <Button variant="primary" type="submit" isPending={busy}>
                Create token
              </Button>
            </div>
          </Form>
        )}
      </AppDialog>
    </>
  );
}

function RevokeToken({ token, onRevoked }: { token: ApiToken; onRevoked: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="quiet" onPress={() => setOpen(true)} aria-label={`Revoke token ${token.name}`}>
        Revoke
      </Button>
      <ConfirmDialog
        title={`Revoke “${token.name}”?`}
        isOpen={open}
        onOpenChange={setOpen}
        confirmLabel="Revoke token"
        danger
        onConfirm={async () => {
          await api.delete('/tokens/{token_id}', { params: { token_id: token.id } });
          toast(`Token “${token.name}” revoked.`);
          onRevoked();
        }}
      >
        <p>
          Programs using{' '}
          {token.prefix ? (
            <>
              the token starting <code>{token.prefix}</code>
            </>
          ) : (
            'this token'
          )}{' '}
          get 401 from their next request. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}

export function ApiSettingsPage() {
  const { isOwner } = useSignedIn();
  const tokens = useLoad((signal) => api.get('/tokens', { signal }), []);
  const reload = () => void tokens.reload();

  return (
    <>
      <PageHeader title="API settings" description="Access tokens let your programs use the Parley API as this account.">
        {isOwner ? <CreateToken onCreated={reload} /> : null}
      </PageHeader>
      {!isOwner ? <Notice>Only an owner of the account can create or revoke tokens. Ask one if you need a token.</Notice> : null}
      <section aria-labelledby="tokens-title">
        <h2 id="tokens-title">Access tokens</h2>
        {tokens.error ? <ErrorMessage onRetry={reload}>{tokens.error}</ErrorMessage> : null}
        {!tokens.data && !tokens.error ? <Loading label="Loading tokens…" /> : null}
        {tokens.data ? (
          <Table aria-label="Access tokens">
            <TableHeader>
              <Column isRowHeader>Name</Column>
              <Column>Starts with</Column>
              <Column>Created</Column>
              <Column>Last used</Column>
              {isOwner ? (
                <Column>
                  <span className="visually-hidden">Actions</span>
                </Column>
              ) : null}
            </TableHeader>
            <TableBody
              items={tokens.data.data}
              renderEmptyState={() => <p className="table-empty">No tokens. {isOwner ? 'Create one to use the API.' : ''}</p>}
            >
              {(token) => (
                <Row id={token.id}>
                  <Cell>{token.name}</Cell>
                  <Cell>{token.prefix ? <code>{token.prefix}…</code> : <span className="muted">—</span>}</Cell>
                  <Cell>{formatTime(token.created_at)}</Cell>
                  <Cell>
                    {token.last_used_at ? (
                      <span title={formatTime(token.last_used_at)}>{formatRelative(token.last_used_at)}</span>
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </Cell>
                  {isOwner ? (
                    <Cell>
                      <div className="cell-actions">
                        <RevokeToken token={token} onRevoked={reload} />
                      </div>
                    </Cell>
                  ) : null}
                </Row>
              )}
            </TableBody>
          </Table>
        ) : null}
      </section>
      <UsagePanel />
    </>
  );
}
