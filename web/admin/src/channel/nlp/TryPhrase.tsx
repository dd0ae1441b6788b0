import { useState } from 'react';
import { Form } from 'react-aria-components';
import { messageOf } from '../../api';
import { Button, TextField } from '../../ui';
import { nlpApi } from './nlp-api';
import { NLP_FORM_LIMITS, type NlpParseResult } from './types';

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

/**
 * Classifies a phrase as a received text would be (POST .../nlp/parse): the intents ranked, and
 * the engine's full answer folded away. Nothing is stored or counted.
 */
export function TryPhrase({ channelId }: { channelId: string }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<NlpParseResult['nlp'] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const run = async () => {
    if (text.trim() === '') return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const answer = await nlpApi.parse(channelId, text);
      setResult(answer.nlp);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="ch-card" aria-labelledby="nlp-try-title">
      <h3 id="nlp-try-title">Try a phrase</h3>
      <Form
        className="ch-row nlp-try-row"
        aria-labelledby="nlp-try-title"
        validationBehavior="aria"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <TextField label="Phrase" value={text} onChange={setText} maxLength={NLP_FORM_LIMITS.parseTextLength} placeholder="Where is my order?" />
        <Button type="submit" isPending={busy} isDisabled={text.trim() === ''}>
          Classify
        </Button>
      </Form>
      <div aria-live="polite" data-testid="nlp-try-result">
        {error && (
          <p className="message message-error" role="alert">
            <span>{error}</span>
          </p>
        )}
        {result &&
          (result.intents.length === 0 ? (
            <p>No intent matched.</p>
          ) : (
            <ol className="nlp-ranking" aria-label="Intents, most likely first">
              {result.intents.map((intent, i) => (
                <li key={`${i}-${intent.id}`}>
                  <span className="mono">{intent.id}</span> <span className="muted">{percent.format(intent.confidence)}</span>
                </li>
              ))}
            </ol>
          ))}
        {result && (
          <details className="nlp-native">
            <summary>The engine's full answer</summary>
            <pre className="ch-code nlp-native-json" tabIndex={0} aria-label="The engine's full answer, as JSON">
              {JSON.stringify(result.native_data, null, 2)}
            </pre>
          </details>
        )}
      </div>
    </section>
  );
}
