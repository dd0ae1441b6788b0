// The rbm agent's state and the one step the client may ask for from it: register a new agent,
// launch a created one. The platform moves it through the other states.
import { useState } from 'react';
import { api, messageOf } from '../api';
import type { Channel } from '../types';
import { Button, ConfirmDialog, toast } from '../ui';
import { getPath } from './fields';
import { RBM_STATE_TEXT, rbmStateOf } from './state';

const STEPS = ['new', 'create_requested', 'created', 'launch_requested', 'launched'];

const ACTIONS: Record<string, { to: string; label: string; confirm: string }> = {
  new: {
    to: 'create_requested',
    label: 'Register agent',
    confirm: 'The service asks the RCS platform to register this agent. Once created, it can message test phone numbers only.',
  },
  created: {
    to: 'launch_requested',
    label: 'Launch agent',
    confirm: 'The service asks the RCS platform to launch this agent. Once launched, it can message any phone number.',
  },
};

export function RbmAgent({ channel, reload }: { channel: Channel; reload: () => Promise<void> }) {
  const state = rbmStateOf(channel);
  const action = ACTIONS[state];
  const [confirming, setConfirming] = useState(false);
  const [checking, setChecking] = useState(false);
  const at = STEPS.indexOf(state);
  const reason = getPath(channel, 'rbm.agent_state_reason');

  // Get Channel with refresh=true asks the platform for the agent's state now.
  const check = async () => {
    setChecking(true);
    try {
      await api.get<Channel>(`/v1/channels/${encodeURIComponent(channel.id)}`, { refresh: 'true' });
      await reload();
    } catch (e) {
      toast(messageOf(e), 'error');
    } finally {
      setChecking(false);
    }
  };

  const request = async () => {
    if (!action) return;
    await api.patch<Channel>(`/v1/channels/${encodeURIComponent(channel.id)}`, { rbm: { agent_state: action.to } });
    toast(`${action.label}: requested.`);
    await reload();
  };

  return (
    <section className="section" aria-labelledby="rbm-agent-title">
      <h2 id="rbm-agent-title">RCS agent</h2>
      <p>
        State: <strong>{RBM_STATE_TEXT[state]?.label ?? state}</strong> <span className="mono muted">({state})</span>
      </p>
      <p className="muted">{RBM_STATE_TEXT[state]?.description}</p>
      {typeof reason === 'string' && reason ? (
        <p className="message message-warning">
          <span>The platform says: {reason}</span>
        </p>
      ) : null}
      <ol className="steps" aria-label="Agent life cycle">
        {STEPS.map((step, i) => (
          <li key={step} className={i < at ? 'step step-done' : i === at ? 'step step-current' : 'step'} aria-current={i === at ? 'step' : undefined}>
            {RBM_STATE_TEXT[step]?.label ?? step}
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
      ) : state !== 'launched' ? (
        <div className="page-actions">
          <p className="muted">Waiting for the RCS platform; the state changes when it answers.</p>
          <Button onPress={() => void check()} isPending={checking}>
            Check with the platform
          </Button>
        </div>
      ) : (
        <p className="muted">Nothing more to do: the agent is live.</p>
      )}
      {action ? (
        <ConfirmDialog title={`${action.label}?`} isOpen={confirming} onOpenChange={setConfirming} confirmLabel={action.label} onConfirm={request}>
          <p>{action.confirm}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
