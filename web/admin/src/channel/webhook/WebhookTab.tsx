import { useState } from 'react';
import { messageOf } from '../../api';
import type { ChannelPageProps } from '../../channels/channel-route';
import { Button } from '../../ui';
import { channelApi } from '../channel-api';
import { StatusLine, type Notice } from '../bits';
import { DeliveryLog } from './DeliveryLog';
import { SecretPanel } from './SecretPanel';
import { WebhookForm } from './WebhookForm';

/** The Webhook tab: where the channel's events go, how they are signed, and what became of them. */
export function WebhookTab({ channel, reload }: ChannelPageProps) {
  const [notice, setNotice] = useState<Notice>(null);
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);

  const sendTest = async () => {
    try {
      const { delivery_id } = await channelApi.sendTestEvent(channel.id);
      setNotice({ tone: 'ok', text: `Test event queued (delivery ${delivery_id}); its attempts show in the log below.` });
      bump();
    } catch (e) {
      setNotice({ tone: 'error', text: messageOf(e) });
    }
  };
  const changed = async () => {
    await reload();
    bump();
  };

  return (
    <div className="ch-tab">
      <StatusLine notice={notice} />
      <section className="ch-card" aria-labelledby="ch-webhook-title">
        <h3 id="ch-webhook-title">Webhook</h3>
        <WebhookForm channel={channel} onSaved={changed} notify={setNotice} />
      </section>
      {channel.webhook && (
        <>
          <SecretPanel channel={channel} onRotated={reload} notify={setNotice} />
          <section className="ch-card" aria-labelledby="ch-test-title">
            <h3 id="ch-test-title">Test event</h3>
            <p className="ch-hint">Sends a signed webhook_test event to the URL above, logged and retried like any event.</p>
            <Button onPress={() => void sendTest()}>Send test event</Button>
          </section>
        </>
      )}
      <DeliveryLog channelId={channel.id} version={version} bump={bump} notify={setNotice} />
    </div>
  );
}
