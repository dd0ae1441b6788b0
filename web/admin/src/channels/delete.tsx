// Deleting a channel, with a confirmation that says what goes with it: its contacts (counted),
// their messages and files, the webhook and its delivery log.
import { useEffect, useState } from 'react';
import { api } from '../api';
import { APP_BASE, useNavigate } from '../router';
import type { Channel } from '../types';
import { Button, ConfirmDialog, toast } from '../ui';

export function DeleteChannel({ channel }: { channel: Channel }) {
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [contacts, setContacts] = useState<number | null>(null);

  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    api
      .page('/v1/channels/{channel_id}/contacts', { params: { channel_id: channel.id }, query: { max: 1 }, signal: controller.signal })
      .then((page) => setContacts(page.total))
      .catch(() => setContacts(null));
    return () => controller.abort();
  }, [open, channel.id]);

  const remove = async () => {
    await api.delete('/v1/channels/{channel_id}', { params: { channel_id: channel.id } });
    toast(`Channel “${channel.name}” deleted.`);
    navigate(`${APP_BASE}/channels`);
  };

  const contactText = contacts === null ? 'all its contacts' : contacts === 1 ? 'its 1 contact' : `its ${contacts} contacts`;

  return (
    <>
      <Button variant="danger" onPress={() => setOpen(true)}>
        Delete channel
      </Button>
      <ConfirmDialog title={`Delete “${channel.name}”?`} isOpen={open} onOpenChange={setOpen} confirmLabel="Delete channel" danger onConfirm={remove}>
        <p>This deletes the channel and everything that belongs to it:</p>
        <ul>
          <li>{contactText}, with their conversations, messages and stored files;</li>
          <li>{channel.webhook ? 'its webhook and the log of webhook deliveries, with deliveries not yet made;' : 'its log of webhook deliveries;'}</li>
          <li>its settings.</li>
        </ul>
        <p>
          Nothing is changed on the platform itself. <strong>This cannot be undone.</strong>
        </p>
      </ConfirmDialog>
    </>
  );
}
