import { Button, TextField } from '../../ui';
import { builtinDraftOf, builtinInputOf, errorUnder, sameBuiltin } from './draft';
import { IntentsEditor } from './IntentsEditor';
import { LanguagePicker } from './LanguagePicker';
import { nlpApi } from './nlp-api';
import type { NlpView } from './types';
import { useDraft } from './use-draft';
import { useSave, type EngineFormProps } from './use-save';

/** The fields this form shows errors at; the API's other errors go to the status line. */
const SHOWN = ['languages', 'intents', 'entities', 'time_budget_ms'] as const;

/** What a saved built-in integration's training data looks like, to tell when it changed. */
const savedKeyOf = (view: NlpView | null) => (view ? JSON.stringify([view.languages, view.intents, view.entities, view.time_budget_ms]) : 'new');

/**
 * A built-in integration's training data: languages, intents with example phrases, optional
 * entities as JSON, and the time budget. Saving replaces the integration (PUT), which starts a
 * training of the new version.
 */
export function BuiltinForm({ channelId, view, onSaved, onCancel, notify }: EngineFormProps) {
  const { draft, setDraft, dirty, reset } = useDraft(() => builtinDraftOf(view), savedKeyOf(view), sameBuiltin);
  const { errors, busy, save } = useSave({
    view,
    shown: SHOWN,
    notify,
    onSaved,
    check: () => builtinInputOf(draft),
    send: (body) => nlpApi.put(channelId, body),
    saved: (saved) => reset(builtinDraftOf(saved)),
  });

  return (
    <div className="ch-form nlp-form" role="group" aria-label="Built-in engine training data">
      <LanguagePicker value={draft.languages} onChange={(languages) => setDraft({ ...draft, languages })} error={errorUnder(errors, 'languages')} />
      <IntentsEditor intents={draft.intents} languages={draft.languages} onChange={(intents) => setDraft({ ...draft, intents })} errors={errors} />
      <TextField
        label="Entities (JSON, optional)"
        multiline
        rows={5}
        value={draft.entities}
        onChange={(entities) => setDraft({ ...draft, entities })}
        error={errorUnder(errors, 'entities')}
        className="nlp-json"
        description={
          <>
            For advanced use: named values found in texts, e.g.{' '}
            <code>{'[{"name": "size", "values": [{"value": "large", "synonyms": {"en": ["large", "big"]}}]}]'}</code>. Empty for none.
          </>
        }
      />
      <TextField
        label="Time budget (ms)"
        inputMode="numeric"
        value={draft.budget}
        onChange={(budget) => setDraft({ ...draft, budget })}
        error={errorUnder(errors, 'time_budget_ms')}
        description="How long a received message may wait for its intents; later, its event goes out without them. Empty: the server's default."
      />
      <div className="ch-actions ch-sticky">
        <Button variant="primary" onPress={() => void save()} isPending={busy} isDisabled={view !== null && !dirty}>
          {view ? 'Save and train' : 'Connect and train'}
        </Button>
        {onCancel && (
          <Button variant="secondary" onPress={onCancel} isDisabled={busy}>
            Cancel
          </Button>
        )}
        {view && dirty && <span className="ch-muted">Unsaved changes.</span>}
      </div>
    </div>
  );
}
