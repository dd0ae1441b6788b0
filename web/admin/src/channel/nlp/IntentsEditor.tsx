import { Button, TextField } from '../../ui';
import { emptyIntent, errorUnder, phrasesOf, type IntentDraft } from './draft';
import { languageLabel } from './languages';

/**
 * The intents of a built-in integration: each an id and, per chosen language, its example phrases
 * in a text area, one a line. The API's 422 fields (`intents[i].id`, `intents[i].utterances.xx...`)
 * are shown at the field they name; anything else about an intent at the intent.
 */
export function IntentsEditor({
  intents,
  languages,
  onChange,
  errors,
}: {
  intents: IntentDraft[];
  languages: string[];
  onChange: (next: IntentDraft[]) => void;
  errors: Record<string, string>;
}) {
  const update = (index: number, change: Partial<IntentDraft>) => onChange(intents.map((intent, i) => (i === index ? { ...intent, ...change } : intent)));
  const listError = errors.intents;

  return (
    <fieldset className="ch-fieldset" aria-describedby={listError ? 'nlp-intents-error' : undefined}>
      <legend>Intents</legend>
      <p className="ch-hint">What a received text may mean, each with example phrases people write for it. More varied examples classify better.</p>
      {listError && (
        <p className="field-error" id="nlp-intents-error" role="alert">
          {listError}
        </p>
      )}
      <ol className="nlp-intents">
        {intents.map((intent, i) => {
          const base = `intents[${i}]`;
          const idError = errorUnder(errors, `${base}.id`);
          const ownError = Object.entries(errors).find(
            ([field]) =>
              errorUnder({ [field]: '' }, base) !== undefined &&
              !field.startsWith(`${base}.id`) &&
              !languages.some((l) => field.startsWith(`${base}.utterances.${l}`)),
          )?.[1];
          const name = intent.id.trim() || `intent ${i + 1}`;
          return (
            <li key={intent.key} className="nlp-intent" data-testid={`nlp-intent-${i + 1}`}>
              <fieldset className="ch-fieldset">
                <legend>Intent {i + 1}</legend>
                <TextField
                  label="Intent id"
                  value={intent.id}
                  onChange={(id) => update(i, { id })}
                  isRequired
                  error={idError}
                  description="Letters, digits and _ . : - (what the events carry, e.g. order_status)."
                />
                {languages.length === 0 && <p className="ch-muted">Choose a language above to add example phrases.</p>}
                {languages.map((lang) => {
                  const count = phrasesOf(intent.phrases[lang]).length;
                  return (
                    <TextField
                      key={lang}
                      label={`Example phrases in ${languageLabel(lang)}`}
                      multiline
                      rows={4}
                      value={intent.phrases[lang] ?? ''}
                      onChange={(text) => update(i, { phrases: { ...intent.phrases, [lang]: text } })}
                      error={errorUnder(errors, `${base}.utterances.${lang}`)}
                      description={`One phrase a line (${count} now).`}
                    />
                  );
                })}
                {ownError && (
                  <p className="field-error" role="alert">
                    {ownError}
                  </p>
                )}
                <div className="ch-actions">
                  <Button variant="quiet" className="ch-small" aria-label={`Remove intent ${name}`} onPress={() => onChange(intents.filter((_, j) => j !== i))}>
                    Remove intent
                  </Button>
                </div>
              </fieldset>
            </li>
          );
        })}
      </ol>
      <Button onPress={() => onChange([...intents, emptyIntent()])}>Add intent</Button>
    </fieldset>
  );
}
