import { useState } from 'react';
import { Button, TextField } from '../../ui';
import { originProblem, WHITELIST_MAX } from './menu-rules';

/**
 * The domains whitelist: page origins allowed to connect. Each entry is checked as it is typed
 * (protocol, host, and the port only when not standard); `errors` holds the API's 422 by field.
 */
export function WhitelistEditor({
  field,
  value,
  onChange,
  errors,
  intro,
}: {
  field: string;
  value: string[];
  onChange: (next: string[]) => void;
  errors: Record<string, string>;
  intro: string;
}) {
  const [draft, setDraft] = useState('');
  const draftProblem = draft.trim() === '' ? null : originProblem(draft.trim());
  const add = () => {
    const entry = draft.trim();
    if (entry === '' || draftProblem) return;
    if (!value.includes(entry)) onChange([...value, entry]);
    setDraft('');
  };

  return (
    <fieldset className="ch-fieldset">
      <legend>Domains whitelist</legend>
      <p className="ch-hint">{intro}</p>
      {errors[field] && (
        <p className="field-error" role="alert">
          {errors[field]}
        </p>
      )}
      {value.length === 0 ? (
        <p className="ch-muted">No domains: every connection attempt is refused.</p>
      ) : (
        <ul className="ch-list" aria-label="Whitelisted domains">
          {value.map((entry, i) => {
            const problem = originProblem(entry) ?? errors[`${field}[${i}]`];
            return (
              <li key={`${entry}-${i}`} className="ch-list-row">
                <code>{entry}</code>
                {problem && <span className="field-error">{problem}</span>}
                <Button variant="quiet" aria-label={`Remove ${entry}`} onPress={() => onChange(value.filter((_, j) => j !== i))}>
                  Remove
                </Button>
              </li>
            );
          })}
        </ul>
      )}
      <div
        className="ch-row ch-add-row"
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            add();
          }
        }}
      >
        <TextField
          label="Add a domain"
          value={draft}
          onChange={setDraft}
          placeholder="https://shop.example.com"
          error={draftProblem ?? undefined}
          description={`Protocol and host, and the port when it is not 80 (http) or 443 (https). At most ${WHITELIST_MAX} entries.`}
        />
        <Button onPress={add} isDisabled={draft.trim() === '' || draftProblem !== null || value.length >= WHITELIST_MAX}>
          Add domain
        </Button>
      </div>
    </fieldset>
  );
}
