import { useState } from 'react';
import { ToggleButton } from 'react-aria-components';
import { CopyButton } from '../../ui';
import { channelApi } from '../channel-api';
import { ConfirmButton, type Notice } from '../bits';
import type { Channel } from '../types';

/** The signing secret: hidden until revealed, copied without showing, rotated after a warning. */
export function SecretPanel({ channel, onRotated, notify }: { channel: Channel; onRotated: () => Promise<void>; notify: (n: Notice) => void }) {
  const [shown, setShown] = useState(false);
  const secret = channel.webhook?.secret ?? '';

  const rotate = async () => {
    await channelApi.rotateSecret(channel.id);
    await onRotated();
    notify({ tone: 'ok', text: 'A new secret is in use. Update your receiver to check signatures with it.' });
  };

  return (
    <section className="ch-card" aria-labelledby="ch-secret-title">
      <h3 id="ch-secret-title">Signing secret</h3>
      <p className="ch-hint">Each event carries X-Hub-Signature (HMAC-SHA1) and X-Hub-Signature-256 (HMAC-SHA256) of its body under this secret.</p>
      <div className="ch-row">
        <code className="ch-secret" id="ch-secret-value" data-testid="webhook-secret">
          {shown ? secret : '••••••••••••••••••••••••'}
        </code>
        <ToggleButton className="button button-secondary" isSelected={shown} onChange={setShown}>
          {shown ? 'Hide secret' : 'Reveal secret'}
        </ToggleButton>
        <CopyButton value={secret} label="Copy secret" />
        <ConfirmButton label="Rotate secret" title="Rotate the signing secret?" confirmLabel="Rotate" danger onConfirm={rotate}>
          A new random secret replaces the current one at once. Events are signed with the new secret from now on, so a receiver that checks signatures rejects
          them until it has the new secret.
        </ConfirmButton>
      </div>
    </section>
  );
}
