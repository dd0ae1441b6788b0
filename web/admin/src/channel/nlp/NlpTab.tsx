import { useRef, useState } from 'react';
import { messageOf } from '../../api';
import type { ChannelPageProps } from '../../channels/channel-route';
import { ErrorMessage, Loading } from '../../ui';
import { ConfirmButton, StatusLine, type Notice } from '../bits';
import { usePoll } from '../use-poll';
import { BuiltinForm } from './BuiltinForm';
import { ConnectPanel } from './ConnectPanel';
import { ExternalForm } from './ExternalForm';
import { nlpApi } from './nlp-api';
import { NlpStats } from './NlpStats';
import { TrainingStatus } from './TrainingStatus';
import { TryPhrase } from './TryPhrase';
import type { NlpKind, NlpView } from './types';
import './nlp.css';

/** While a model trains the tab follows it closely; otherwise the counters are read now and then. */
const TRAINING_POLL_MS = 1000;
const IDLE_POLL_MS = 15_000;

const KIND_LABEL: Record<NlpKind, string> = { builtin: 'Built-in engine, trained here', external: 'External NLU server' };

/**
 * The NLP tab: connects the channel to an engine that classifies its received texts (their
 * message_received events then carry `nlp`), edits it, shows its training and counters, tries a
 * phrase, and removes it.
 */
export function NlpTab({ channel }: ChannelPageProps) {
  /** undefined while loading; null: the channel has no integration. */
  const [view, setView] = useState<NlpView | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [creating, setCreating] = useState<NlpKind | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  // Counts this tab's own changes: a poll answer sent before one of them is older than what it showed.
  const changes = useRef(0);

  const show = (next: NlpView | null) => {
    changes.current += 1;
    setView(next);
  };

  const status = view?.training?.status;
  const moving = status === 'queued' || status === 'training';
  usePoll(
    async (signal) => {
      const before = changes.current;
      try {
        const found = await nlpApi.get(channel.id, signal);
        if (signal.aborted || before !== changes.current) return;
        setView(found);
        setLoadError(null);
      } catch (error) {
        if (!signal.aborted) setLoadError(messageOf(error));
      }
    },
    moving ? TRAINING_POLL_MS : IDLE_POLL_MS,
    { key: channel.id, repeat: view !== null },
  );

  if (view === undefined) return loadError ? <ErrorMessage>{loadError}</ErrorMessage> : <Loading label="Loading the NLP integration…" />;

  const saved = (next: NlpView, created: boolean) => {
    show(next);
    setCreating(null);
    const training = next.training;
    if (created) setNotice({ tone: 'ok', text: training ? 'Connected. Training has started: intents come once the model is ready.' : 'Connected.' });
    else setNotice({ tone: 'ok', text: training ? `Saved. Version ${training.version} is training.` : 'Saved.' });
  };
  const remove = async () => {
    await nlpApi.remove(channel.id);
    show(null);
    setNotice({ tone: 'ok', text: 'NLP integration removed: received texts go out without intents.' });
  };
  const formProps = { channelId: channel.id, onSaved: saved, notify: setNotice };

  return (
    <div className="ch-tab">
      <StatusLine notice={notice} />
      {loadError && <ErrorMessage>{loadError}</ErrorMessage>}
      {view === null && creating === null && <ConnectPanel onConnect={setCreating} />}
      {view === null && creating !== null && (
        <section className="ch-card" aria-labelledby="nlp-new-title">
          <h3 id="nlp-new-title">Connect: {KIND_LABEL[creating]}</h3>
          {creating === 'builtin' ? (
            <BuiltinForm {...formProps} view={null} onCancel={() => setCreating(null)} />
          ) : (
            <ExternalForm {...formProps} view={null} onCancel={() => setCreating(null)} />
          )}
        </section>
      )}
      {view && (
        <>
          <section className="ch-card" aria-labelledby="nlp-summary-title">
            <h3 id="nlp-summary-title">NLP</h3>
            <p>
              {KIND_LABEL[view.kind]}
              {view.kind === 'external' && view.url ? (
                <>
                  {' '}
                  at <span className="mono">{view.url}</span>
                </>
              ) : null}
              . Received texts of this channel carry their intents in message_received events.
            </p>
            <div className="ch-actions">
              <ConfirmButton label="Remove NLP integration" title="Remove the NLP integration?" confirmLabel="Remove" danger onConfirm={remove}>
                Received texts of this channel will no longer be classified
                {view.kind === 'builtin' ? ', and the training data and its model are deleted' : ''}. To use another kind of engine, remove this one and connect
                again.
              </ConfirmButton>
            </div>
          </section>
          {view.training && <TrainingStatus training={view.training} />}
          <TryPhrase channelId={channel.id} />
          <NlpStats stats={view.stats} />
          <section className="ch-card" aria-labelledby="nlp-edit-title">
            <h3 id="nlp-edit-title">{view.kind === 'builtin' ? 'Training data' : 'NLU server'}</h3>
            {view.kind === 'builtin' ? <BuiltinForm {...formProps} view={view} /> : <ExternalForm {...formProps} view={view} />}
          </section>
        </>
      )}
    </div>
  );
}
