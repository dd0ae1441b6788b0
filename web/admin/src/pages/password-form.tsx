// Changing one's password: the current one, the new one twice. The server checks the length
// (at least 12) and the current password; its errors show next to the field they name.
import { useState, type FormEvent } from 'react';
import { Form } from 'react-aria-components';
import { ApiFailure, api, messageOf } from '../api';
import { useSession } from '../session';
import { Button, TextField, toast } from '../ui';

export const MIN_PASSWORD = 12;

export function PasswordChangeForm({ onDone, onCancel, submitLabel = 'Change password' }: { onDone: () => void; onCancel?: () => void; submitLabel?: string }) {
  const { refresh, state } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!current) found.current_password = 'Enter your current password.';
    if (next.length < MIN_PASSWORD) found.new_password = `Use at least ${MIN_PASSWORD} characters.`;
    else if (repeat !== next) found.repeat = 'The two new passwords differ.';
    setErrors(found);
    setGeneral(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await api.post('/session/password', { current_password: current, new_password: next });
      await refresh();
      toast('Password changed. Your other sessions were signed out.');
      onDone();
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 422 && error.field) setErrors({ [error.field]: error.message });
      else setGeneral(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Form className="form" onSubmit={(e) => void submit(e)} validationBehavior="aria">
      {/* The signed-in user, for the browser's password manager: it updates the password saved under this name. */}
      {state.status === 'signed-in' ? <input type="email" name="username" autoComplete="username" value={state.user.email} readOnly hidden /> : null}
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={current}
        onChange={setCurrent}
        error={errors.current_password}
        isRequired
      />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        value={next}
        onChange={setNext}
        error={errors.new_password}
        description={`At least ${MIN_PASSWORD} characters.`}
        isRequired
      />
      <TextField label="New password again" type="password" autoComplete="new-password" value={repeat} onChange={setRepeat} error={errors.repeat} isRequired />
      {general ? (
        <p className="message message-error" role="alert">
          {general}
        </p>
      ) : null}
      <div className="form-actions">
        {onCancel ? (
          <Button variant="secondary" onPress={onCancel}>
            Cancel
          </Button>
        ) : null}
        <Button variant="primary" type="submit" isPending={busy}>
          {submitLabel}
        </Button>
      </div>
    </Form>
  );
}
