import { Form } from 'react-aria-components';
import { Button, TextField } from '../../ui';
import { errorUnder, externalDraftOf, externalInputOf, externalPatchOf, sameExternal } from './draft';
import { nlpApi } from './nlp-api';
import type { ExternalInput, NlpPatch, NlpView } from './types';
import { useDraft } from './use-draft';
import { useSave, type EngineFormProps } from './use-save';

const SHOWN = ['url', 'auth_token', 'time_budget_ms'] as const;

const savedKeyOf = (view: NlpView | null) => (view ? JSON.stringify([view.url, view.auth_token_set, view.time_budget_ms]) : 'new');

/**
 * An external NLU server: its URL, its auth token (write-only: shown as set or not, replaced or
 * cleared, never read back) and the time budget. A new integration is created with PUT; changes
 * of a saved one go as PATCH, so an untouched token stays as it is.
 */
export function ExternalForm({ channelId, view, onSaved, onCancel, notify }: EngineFormProps) {
  const { draft, setDraft, dirty, reset } = useDraft(() => externalDraftOf(view), savedKeyOf(view), sameExternal);
  const { errors, busy, save } = useSave<ExternalInput | NlpPatch>({
    view,
    shown: SHOWN,
    notify,
    onSaved,
    // A saved integration gets only its changes; a new one the whole input.
    check: () => (view ? externalPatchOf(draft, view) : externalInputOf(draft)),
    send: (body) => ('kind' in body ? nlpApi.put(channelId, body) : nlpApi.patch(channelId, body)),
    saved: (saved) => reset(externalDraftOf(saved)),
  });

  const tokenError = errorUnder(errors, 'auth_token');
  return (
    <Form
      className="ch-form nlp-form"
      aria-label="External NLU server"
      validationBehavior="aria"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <TextField
        label="NLU server URL"
        type="url"
        value={draft.url}
        onChange={(url) => setDraft({ ...draft, url })}
        isRequired
        error={errorUnder(errors, 'url')}
        placeholder="https://nlu.example.com"
        description="Each received text is sent to {url}/model/parse; the server must be reachable from Parley."
      />
      {!view || draft.token === 'replace' ? (
        <div className="ch-row">
          <TextField
            label={view ? 'New auth token' : 'Auth token (optional)'}
            type="password"
            autoComplete="off"
            value={draft.newToken}
            onChange={(newToken) => setDraft({ ...draft, newToken })}
            error={tokenError}
            description="Sent as the token query parameter. It cannot be read back once saved."
          />
          {view && (
            <Button className="ch-small" onPress={() => setDraft({ ...draft, token: 'keep', newToken: '' })}>
              Keep the current token
            </Button>
          )}
        </div>
      ) : (
        <div className="field" data-testid="nlp-auth-token">
          <span className="field-label">Auth token</span>
          <p className="nlp-token-line">
            {draft.token === 'clear' ? (
              <span>Removed when you save.</span>
            ) : view.auth_token_set ? (
              <span className="badge badge-ok">set</span>
            ) : (
              <span className="muted">not set</span>
            )}{' '}
            <Button variant="quiet" className="ch-small" onPress={() => setDraft({ ...draft, token: 'replace', newToken: '' })}>
              {view.auth_token_set ? 'Replace token' : 'Set a token'}
            </Button>
            {view.auth_token_set && draft.token === 'keep' && (
              <Button variant="quiet" className="ch-small" onPress={() => setDraft({ ...draft, token: 'clear' })}>
                Clear token
              </Button>
            )}
            {draft.token === 'clear' && (
              <Button variant="quiet" className="ch-small" onPress={() => setDraft({ ...draft, token: 'keep' })}>
                Keep the token
              </Button>
            )}
          </p>
          {tokenError && (
            <p className="field-error" role="alert">
              {tokenError}
            </p>
          )}
        </div>
      )}
      <TextField
        label="Time budget (ms)"
        inputMode="numeric"
        value={draft.budget}
        onChange={(budget) => setDraft({ ...draft, budget })}
        error={errorUnder(errors, 'time_budget_ms')}
        description="How long a received message may wait for the server's answer; later, its event goes out without intents. Empty: the server's default."
      />
      <div className="ch-actions">
        <Button type="submit" variant="primary" isPending={busy} isDisabled={view !== null && !dirty}>
          {view ? 'Save changes' : 'Connect'}
        </Button>
        {onCancel && (
          <Button variant="secondary" onPress={onCancel} isDisabled={busy}>
            Cancel
          </Button>
        )}
        {view && dirty && <span className="ch-muted">Unsaved changes.</span>}
      </div>
    </Form>
  );
}
