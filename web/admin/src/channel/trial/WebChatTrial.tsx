import { useState } from 'react';
import { messageOf } from '../../api';
import { ErrorMessage, Loading, useLoad } from '../../ui';
import { channelApi } from '../channel-api';
import { StatusLine, type Notice } from '../bits';
import { WidgetPreview } from '../settings/WidgetPreview';
import type { Channel, ServiceChatSettings } from '../types';

/** service_chat needs no stand-in: the real widget runs in a frame of the server's preview page. */
export function WebChatTrial({ channel }: { channel: Channel }) {
  const settings = useLoad(() => channelApi.settings<ServiceChatSettings>(channel.id), [channel.id]);
  const [notice, setNotice] = useState<Notice>(null);
  if (settings.error) return <ErrorMessage onRetry={() => void settings.reload()}>{settings.error}</ErrorMessage>;
  if (!settings.data) return <Loading />;
  const list = settings.data.domains_whitelist ?? [];
  const here = window.location.origin.toLowerCase();
  const allow = async () => {
    try {
      await channelApi.updateSettings<ServiceChatSettings>(channel.id, { domains_whitelist: [...list, window.location.origin] });
      await settings.reload();
      setNotice({ tone: 'ok', text: `${window.location.origin} is on the whitelist now.` });
    } catch (e) {
      setNotice({ tone: 'error', text: messageOf(e) });
    }
  };
  return (
    <>
      <StatusLine notice={notice} />
      <WidgetPreview channelId={channel.id} title="Chat as a visitor" allowed={list.some((o) => o.toLowerCase() === here)} onAllow={() => void allow()} />
    </>
  );
}
