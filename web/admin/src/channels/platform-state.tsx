// A channel's platform-side life cycle (the rbm agent's) and the one step the client may ask for
// from its state (register, launch), as the channel type describes them. The platform moves it
// through the other states.
import { useState } from 'react';
import { api, messageOf } from '../api';
import type { Channel, PlatformStateInfo } from '../types';
import { Button, ConfirmDialog, toast } from '../ui';
import { getPath, setPath } from './fields';
import { platformStateOf } from './state';

type Panel = NonNullable<PlatformStateInfo['panel']>;

export function PlatformState({
  channel,
  platform,
  panel,
  reload,
}: {
  channel: Channel;
  platform: PlatformStateInfo;
  panel: Panel;
  reload: () => Promise<void>;
}) {
  const state = platformStateOf(channel, platform) ?? '';
  const action = panel.actions.find((a) => a.from === state);
  const [confirming, setConfirming] = useState(false);
  const [checking, setChecking] = useState(false);
  const steps = platform.states;
  const at = steps.findIndex((s) => s.state === state);
  const text = steps[at];
  const last = steps.at(-1)?.state;
  const reason = getPath(channel, platform.reason_path);

  // Get Channel with refresh=true asks the platform for the state now.
  const check = async () => {
    setChecking(true);
    try {
      await api.get('/v1/channels/{channel_id}', { params: { channel_id: channel.id }, query: { refresh: 'true' } });
      await reload();
    } catch (e) {
      toast(messageOf(e), 'error');
    } finally {
      setChecking(false);
    }
  };

  const request = async () => {
    if (!action) return;
    const body: Record<string, unknown> = {};
    setPath(body, platform.path, action.to);
    await api.patch('/v1/channels/{channel_id}', body as never, { params: { channel_id: channel.id } });
    toast(`${action.label}: requested.`);
    await reload();
  };

  return (
    <section className="section" aria-labelledby="platform-state-title">
      <h2 id="platform-state-title">{panel.title}</h2>
      <p>
        State: <strong>{text?.label ?? state}</strong> <span className="mono muted">({state})</span>
      </p>
      <p className="muted">{text?.description}</p>
      {typeof reason === 'string' && reason ? (
        <p className="message message-warning">
          <span>The platform says: {reason}</span>
        </p>
      ) : null}
      <ol className="steps" aria-label={panel.steps_label}>
        {steps.map((step, i) => (
          <li key={step.state} className={i < at ? 'step step-done' : i === at ? 'step step-current' : 'step'} aria-current={i === at ? 'step' : undefined}>
            {step.label}
          </li>
        ))}
      </ol>
      {action ? (
        <div className="page-actions">
          <Button variant="primary" onPress={() => setConfirming(true)}>
            {action.label}
          </Button>
          <Button onPress={() => void check()} isPending={checking}>
            Check with the platform
          </Button>
        </div>
      ) : state !== last ? (
        <div className="page-actions">
          <p className="muted">{panel.waiting}</p>
          <Button onPress={() => void check()} isPending={checking}>
            Check with the platform
          </Button>
        </div>
      ) : (
        <p className="muted">{panel.done}</p>
      )}
      {action ? (
        <ConfirmDialog title={`${action.label}?`} isOpen={confirming} onOpenChange={setConfirming} confirmLabel={action.label} onConfirm={request}>
          <p>{action.confirm}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
