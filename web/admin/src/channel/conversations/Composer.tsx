import { useState } from 'react';
import { Form } from 'react-aria-components';
import { messageOf } from '../../api';
import { Button, SelectField, TextField } from '../../ui';
import { channelApi } from '../channel-api';
import { fieldsOf } from '../bits';
import { useChannelType } from '../../channels/channel-types';
import type { ChannelTypeInfo } from '../../types';
import type { Channel, Contact, QuickReply } from '../types';

const QR_MAX = 11;
const QR_TITLE = 20;
const QR_PAYLOAD = 1000;

interface DraftReply {
  key: number;
  type: QuickReply['type'];
  title: string;
  payload: string;
}

let nextKey = 0;

/** The contact as Send Message names it on this channel's type (by phone number where the type takes no id). */
function addressOf(info: ChannelTypeInfo | undefined, contact: Contact) {
  if (info?.contact_address === 'phone_number' && contact.phone_number) return { phone_number: contact.phone_number };
  if (info?.contact_address === 'email' && contact.email) return { email: contact.email };
  return { id: contact.id };
}

/** The operator's reply: text with optional quick replies, sent through Send Message. */
export function Composer({ channel, contact, onSent }: { channel: Channel; contact: Contact; onSent: () => void }) {
  const [text, setText] = useState('');
  const [replies, setReplies] = useState<DraftReply[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const info = useChannelType(channel.type);

  const send = async () => {
    if (text.trim() === '') {
      setErrors({ 'content.payload': 'Write a message first.' });
      return;
    }
    setBusy(true);
    setErrors({});
    setFailure(null);
    const quick = replies.map((r): QuickReply => (r.type === 'text' ? { type: 'text', title: r.title, payload: r.payload } : { type: r.type }));
    try {
      await channelApi.send({
        channel: { id: channel.id },
        contact: addressOf(info, contact),
        content: { type: 'text', payload: text, ...(quick.length > 0 ? { quick_replies: quick } : {}) },
      });
      setText('');
      setReplies([]);
      onSent();
    } catch (e) {
      const fields = fieldsOf(e);
      setErrors(fields);
      setFailure(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  const setReply = (i: number, patch: Partial<DraftReply>) => setReplies(replies.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const contentError = errors.content ?? errors['content.quick_replies'];
  return (
    <Form
      validationBehavior="aria"
      className="ch-composer"
      aria-label={`Reply to ${contact.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <TextField label="Message" multiline rows={3} value={text} onChange={setText} error={errors['content.payload']} />
      {replies.length > 0 && (
        <fieldset className="ch-fieldset">
          <legend>Quick replies</legend>
          {replies.map((r, i) => (
            <div key={r.key} className="ch-row" role="group" aria-label={`Quick reply ${i + 1}`}>
              <SelectField
                label="Kind"
                value={r.type}
                options={[
                  { id: 'text', label: 'Text' },
                  { id: 'location', label: 'Location' },
                  { id: 'email', label: 'E-mail address' },
                  { id: 'phone_number', label: 'Phone number' },
                ]}
                onChange={(type) => setReply(i, { type: type as QuickReply['type'] })}
              />
              {r.type === 'text' && (
                <>
                  <TextField
                    label="Title"
                    value={r.title}
                    onChange={(title) => setReply(i, { title })}
                    error={errors[`content.quick_replies[${i}].title`]}
                    description={r.title.length > QR_TITLE ? `Longer than ${QR_TITLE} characters: the platform cuts it.` : `${r.title.length}/${QR_TITLE}`}
                  />
                  <TextField
                    label="Payload"
                    value={r.payload}
                    onChange={(payload) => setReply(i, { payload })}
                    error={errors[`content.quick_replies[${i}].payload`] ?? (r.payload.length > QR_PAYLOAD ? `At most ${QR_PAYLOAD} characters.` : undefined)}
                  />
                </>
              )}
              <Button variant="quiet" onPress={() => setReplies(replies.filter((_, j) => j !== i))} aria-label={`Remove quick reply ${i + 1}`}>
                Remove
              </Button>
            </div>
          ))}
        </fieldset>
      )}
      {contentError && (
        <p className="field-error" role="alert">
          {contentError}
        </p>
      )}
      {failure && !Object.keys(errors).some((f) => f.startsWith('content')) && (
        <p className="field-error" role="alert">
          {failure}
        </p>
      )}
      <div className="ch-actions">
        <Button type="submit" variant="primary" isPending={busy}>
          Send
        </Button>
        <Button isDisabled={replies.length >= QR_MAX} onPress={() => setReplies([...replies, { key: nextKey++, type: 'text', title: '', payload: '' }])}>
          Add quick reply
        </Button>
      </div>
    </Form>
  );
}
