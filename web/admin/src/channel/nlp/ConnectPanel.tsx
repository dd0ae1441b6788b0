import { useState } from 'react';
import { Label, Radio, RadioGroup } from 'react-aria-components';
import { Button } from '../../ui';
import type { NlpKind } from './types';

const KINDS: { kind: NlpKind; label: string; description: string }[] = [
  { kind: 'builtin', label: 'Built-in (trained here)', description: 'Give intents and example phrases; Parley trains a model and classifies texts itself.' },
  { kind: 'external', label: 'External NLU server', description: 'Parley asks an NLU server you run (its /model/parse API) about each text.' },
];

/** A channel without an integration: what one does, and the choice of engine to connect. */
export function ConnectPanel({ onConnect }: { onConnect: (kind: NlpKind) => void }) {
  const [kind, setKind] = useState<NlpKind>('builtin');
  return (
    <section className="ch-card" aria-labelledby="nlp-connect-title">
      <h3 id="nlp-connect-title">NLP</h3>
      <p className="ch-hint">Not connected: received texts of this channel go out without intents. Connect an engine to classify each one.</p>
      <RadioGroup className="nlp-kinds" value={kind} onChange={(value) => setKind(value as NlpKind)}>
        <Label className="field-label">Engine</Label>
        {KINDS.map((k) => (
          <Radio key={k.kind} value={k.kind} className="nlp-kind">
            <span className="nlp-radio" aria-hidden="true" />
            <span>
              <span className="nlp-kind-label">{k.label}</span>
              <span className="field-description nlp-kind-description">{k.description}</span>
            </span>
          </Radio>
        ))}
      </RadioGroup>
      <div className="ch-actions">
        <Button variant="primary" onPress={() => onConnect(kind)}>
          Connect
        </Button>
      </div>
    </section>
  );
}
