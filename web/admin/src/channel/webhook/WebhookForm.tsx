import { useEffect, useState } from 'react';
import { Form } from 'react-aria-components';
import { messageOf } from '../../api';
import { Button, CheckboxField, TextField } from '../../ui';
import { channelApi } from '../channel-api';
import { ConfirmButton, fieldsOf, type Notice } from '../bits';
import type { Channel } from '../types';

const verifies = (channel: Channel) => (channel.webhook ? channel.webhook.ssl_verification !== false : true);

/** The webhook's URL and ssl_verification; the API's 422 is shown next to the field it names. */
export function WebhookForm({ channel, onSaved, notify }: { channel: Channel; onSaved: () => Promise<void>; notify: (n: Notice) => void }) {
  const [url, setUrl] = useState(channel.webhook?.url ?? '');
  const [verify, setVerify] = useState(verifies(channel));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setUrl(channel.webhook?.url ?? '');
    setVerify(verifies(channel));
  }, [channel.webhook?.url, channel.webhook?.ssl_verification]);

  const save = async () => {
    setBusy(true);
    setErrors({});
    try {
      await channelApi.setWebhook(channel.id, { url: url.trim(), ssl_verification: verify });
      await onSaved();
      notify({ tone: 'ok', text: 'Webhook saved.' });
    } catch (error) {
      const fields = fieldsOf(error);
      setErrors(fields);
      notify({ tone: 'error', text: Object.keys(fields).length > 0 ? 'The webhook was not saved: see the marked field.' : messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    await channelApi.setWebhook(channel.id, null);
    await onSaved();
    notify({ tone: 'ok', text: 'Webhook removed. Its pending deliveries were dropped.' });
  };

  return (
    <Form
      validationBehavior="aria"
      className="ch-form"
      aria-label="Webhook settings"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <TextField
        label="Webhook URL"
        type="url"
        value={url}
        onChange={setUrl}
        isRequired
        error={errors['webhook.url'] ?? errors.webhook}
        placeholder="https://example.com/parley/events"
        description="Every event of this channel is sent here as a signed POST; the receiver must answer 2xx within 60 seconds."
      />
      <CheckboxField
        label="Verify the receiver's TLS certificate (ssl_verification)"
        isSelected={verify}
        onChange={setVerify}
        description={verify ? undefined : 'Not recommended: without verification anyone on the path could pose as your receiver.'}
      />
      {errors['webhook.ssl_verification'] && (
        <p className="field-error" role="alert">
          {errors['webhook.ssl_verification']}
        </p>
      )}
      <div className="ch-actions">
        <Button type="submit" variant="primary" isPending={busy}>
          {channel.webhook ? 'Save webhook' : 'Set webhook'}
        </Button>
        {channel.webhook && (
          <ConfirmButton label="Remove webhook" title="Remove the webhook?" confirmLabel="Remove" danger onConfirm={remove}>
            Events of this channel will no longer be sent anywhere, and deliveries still waiting for a retry are dropped.
          </ConfirmButton>
        )}
      </div>
    </Form>
  );
}
