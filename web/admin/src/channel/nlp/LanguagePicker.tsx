import { useMemo, useState } from 'react';
import { Button as AriaButton, ComboBox, Input, Label, ListBox, ListBoxItem, Popover, Text } from 'react-aria-components';
import { Button } from '../../ui';
import { languageLabel, languageOptions, type LanguageOption } from './languages';
import { NLP_FORM_LIMITS } from './types';

/**
 * The languages of a built-in integration: the chosen ones, each removable, and a combo box that
 * finds a language by name or code and adds it when picked. `error` is the API's 422 for
 * `languages` (or one of its entries), shown under the list and announced.
 */
export function LanguagePicker({ value, onChange, error }: { value: string[]; onChange: (next: string[]) => void; error: string | undefined }) {
  const all = useMemo(languageOptions, []);
  const available = all.filter((option) => !value.includes(option.code));
  const full = value.length >= NLP_FORM_LIMITS.languages;
  // The combo box starts afresh (empty, closed) after every change of the list; after a pick it
  // keeps the focus, so the next language can be typed at once.
  const [picked, setPicked] = useState(false);
  const [said, setSaid] = useState('');

  const add = (code: string) => {
    setPicked(true);
    setSaid(`${languageLabel(code)} added.`);
    onChange([...value, code]);
  };
  const remove = (code: string) => {
    setPicked(false);
    setSaid(`${languageLabel(code)} removed.`);
    onChange(value.filter((c) => c !== code));
  };

  return (
    <fieldset className="ch-fieldset" aria-describedby={error ? 'nlp-languages-error' : undefined} data-testid="nlp-languages">
      <legend>Languages</legend>
      <p className="ch-hint">The languages of the example phrases; a received text is classified in the one it looks most like.</p>
      {value.length === 0 ? (
        <p className="ch-muted">No language yet.</p>
      ) : (
        <ul className="ch-list" aria-label="Chosen languages">
          {value.map((code) => (
            <li key={code} className="ch-list-row">
              <span>{languageLabel(code)}</span>
              <Button variant="quiet" className="ch-small" aria-label={`Remove ${languageLabel(code)}`} onPress={() => remove(code)}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="field-error" id="nlp-languages-error" role="alert">
          {error}
        </p>
      )}
      <ComboBox
        key={value.join(',')}
        className="field nlp-language-combo"
        defaultItems={available}
        onSelectionChange={(key) => {
          if (key !== null) add(String(key));
        }}
        isDisabled={full}
        autoFocus={picked}
      >
        <Label className="field-label">Add a language</Label>
        <div className="nlp-combo-row">
          <Input className="input" placeholder="Type a name or code" />
          <AriaButton className="button button-secondary nlp-combo-button" aria-label="Show languages">
            <span aria-hidden="true">▾</span>
          </AriaButton>
        </div>
        <Text slot="description" className="field-description">
          {full ? `At most ${NLP_FORM_LIMITS.languages} languages.` : 'The server says which languages its built-in engine cannot learn.'}
        </Text>
        <Popover className="popover">
          <ListBox className="listbox" renderEmptyState={() => <p className="ch-muted nlp-empty">No language matches.</p>}>
            {(option: LanguageOption) => (
              <ListBoxItem id={option.code} className="listbox-item" textValue={option.label}>
                {option.label}
              </ListBoxItem>
            )}
          </ListBox>
        </Popover>
      </ComboBox>
      <p className="ch-sr-only" role="status">
        {said}
      </p>
    </fieldset>
  );
}
