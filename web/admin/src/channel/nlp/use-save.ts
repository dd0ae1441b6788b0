import { useState } from 'react';
import { messageOf } from '../../api';
import { fieldsOf, type Notice } from '../bits';
import { errorsElsewhere, type Checked } from './draft';
import type { NlpView } from './types';

/** What the tab gives either engine form. */
export interface EngineFormProps {
  channelId: string;
  /** null: a new integration. */
  view: NlpView | null;
  onSaved: (saved: NlpView, created: boolean) => void;
  onCancel?: () => void;
  notify: (notice: Notice) => void;
}

/** What both engine forms give to be saved. */
export interface SaveOptions<Body> {
  view: NlpView | null;
  /** The fields the form shows errors at; the API's other errors go to the status line. */
  shown: readonly string[];
  notify: (notice: Notice) => void;
  /** The request body from the form, or the errors the form can tell itself. */
  check(): Checked<Body>;
  send(body: Body): Promise<NlpView>;
  /** After a save: the form takes the saved integration as its new draft. */
  saved(view: NlpView): void;
  onSaved: (saved: NlpView, created: boolean) => void;
}

/**
 * Saving an engine form: its own checks first, then the API; errors are shown at the fields they
 * name, anything else (and a count of the marked fields) in the status line.
 */
export function useSave<Body>(o: SaveOptions<Body>): { errors: Record<string, string>; busy: boolean; save: () => Promise<void> } {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const refuse = (fields: Record<string, string>, fallback: string) => {
    setErrors(fields);
    const elsewhere = errorsElsewhere(fields, o.shown);
    const placed = Object.keys(fields).length - elsewhere.length;
    const marked = placed === 1 ? 'one field breaks a rule' : `${placed} fields break a rule`;
    o.notify({ tone: 'error', text: elsewhere[0] ?? (placed > 0 ? `Not saved: ${marked} (marked below).` : fallback) });
  };

  const save = async () => {
    const checked = o.check();
    if (!checked.ok) {
      refuse(checked.errors, 'Not saved.');
      return;
    }
    setBusy(true);
    try {
      const saved = await o.send(checked.value);
      setErrors({});
      o.saved(saved);
      o.onSaved(saved, o.view === null);
    } catch (error) {
      refuse(fieldsOf(error), messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return { errors, busy, save };
}
