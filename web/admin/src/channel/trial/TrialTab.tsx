import { useState } from 'react';
import { Form } from 'react-aria-components';
import { messageOf } from '../../api';
import type { ChannelPageProps } from '../../channels/channel-route';
import { useNavigate } from '../../router';
import { Button, CheckboxField, ErrorMessage, Loading, TextField, useLoad } from '../../ui';
import { useChannelType } from '../../channels/channel-types';
import { channelApi } from '../channel-api';
import { fieldsOf } from '../bits';
import { Composer } from '../conversations/Composer';
import { Conversations } from '../conversations/ConversationsTab';
import type { Channel } from '../types';
import { WebChatTrial } from './WebChatTrial';

/**
 * The Local trial tab: with the platform stand-ins running, the user plays the channel's end user
 * (the stand-in writes to Parley through the platform's real inbound path) and answers as the
 * operator in the same view. The web chat needs no stand-in: its real widget runs in a frame.
 */
export function TrialTab({ channel, query }: ChannelPageProps) {
  const status = useLoad(() => channelApi.trial(), []);
  const info = useChannelType(channel.type);
  const selected = query.get('contact');
  const base = `/admin/channels/${encodeURIComponent(channel.id)}/trial`;
  const hrefOf = (id: string) => `${base}?contact=${encodeURIComponent(id)}`;
  const watch = (
    <Conversations
      channelId={channel.id}
      selected={selected}
      hrefOf={hrefOf}
      contactsEveryMs={3000}
      renderReply={(contact, refresh) => <Composer channel={channel} contact={contact} onSent={refresh} />}
    />
  );

  if (info?.web_chat) {
    return (
      <div className="ch-tab">
        <p className="ch-hint">Write in the chat as a visitor of your site would, and answer from the conversation below.</p>
        <WebChatTrial channel={channel} />
        {watch}
      </div>
    );
  }
  if (status.error) return <ErrorMessage onRetry={() => void status.reload()}>{status.error}</ErrorMessage>;
  if (!status.data) return <Loading />;
  if (!status.data.available) return <TrialOff />;
  return (
    <div className="ch-tab">
      <TrialSender channel={channel} selected={selected} hrefOf={hrefOf} />
      {watch}
    </div>
  );
}

function TrialOff() {
  return (
    <section className="ch-card" aria-labelledby="ch-trial-off">
      <h3 id="ch-trial-off">The local trial is off</h3>
      <p>
        The trial plays your channel's end user through the local stand-ins of the platforms, so you can see a whole conversation without any platform account.
        To turn it on:
      </p>
      <ol>
        <li>
          Start the stand-ins in a terminal: <code>npm run sandbox</code>. It prints the server settings that match them, among them{' '}
          <code>export SANDBOX_URL=http://127.0.0.1:9101</code>.
        </li>
        <li>Paste those lines into the terminal of the server, and start it again there.</li>
        <li>Create the channel in production mode with the stand-in's credentials (the sandbox prints them), then come back to this tab.</li>
      </ol>
    </section>
  );
}

function TrialSender({ channel, selected, hrefOf }: { channel: Channel; selected: string | null; hrefOf: (id: string) => string }) {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [asSelected, setAsSelected] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string | null>(null);

  const send = async () => {
    if (text.trim() === '') {
      setError('Write what the end user says.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const useContact = asSelected && selected !== null;
      const answer = await channelApi.trialSend(channel.id, { text, ...(useContact ? { contact: selected } : {}) });
      setSent(text);
      setText('');
      if (answer.contact_id && answer.contact_id !== selected) navigate(hrefOf(answer.contact_id));
    } catch (e) {
      const fields = fieldsOf(e);
      setError(fields.text ?? messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="ch-card" aria-labelledby="ch-trial-title">
      <h3 id="ch-trial-title">Write as an end user</h3>
      <p className="ch-hint">The platform's stand-in sends this text to the channel as one of its users would; it arrives through the channel's inbound URL.</p>
      <Form
        validationBehavior="aria"
        className="ch-form"
        aria-label="Message as end user"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <TextField label="End user's message" value={text} onChange={setText} error={error ?? undefined} />
        {/* Unticked and off until a contact is picked: the stand-in's trial user writes then, as a contact of its own. */}
        <CheckboxField
          label="Write as the contact shown below"
          isSelected={selected !== null && asSelected}
          onChange={setAsSelected}
          isDisabled={selected === null}
          description={
            selected === null
              ? "Pick a contact below to write as them. Until then the stand-in's trial user writes, as a contact of its own."
              : "Otherwise the stand-in's trial user writes."
          }
        />
        <div className="ch-actions">
          <Button type="submit" variant="primary" isPending={busy}>
            Send as end user
          </Button>
          <span role="status" className="ch-muted">
            {sent ? `Sent "${sent}" through the stand-in.` : ''}
          </span>
        </div>
      </Form>
    </section>
  );
}
