import { api, type BodyOf } from '../api';
import type { DeliveryStatus, ServiceChatSettings, SocialnetChatSettings } from './types';

/** Every call the channel tabs make: the /v1 routes under /admin/api/v1 and the app-only helpers. */
const channel = (id: string) => ({ params: { channel_id: id } });

export const channelApi = {
  get: (id: string) => api.get('/v1/channels/{channel_id}', channel(id)),
  setWebhook: (id: string, webhook: { url: string; ssl_verification: boolean } | null) => api.patch('/v1/channels/{channel_id}', { webhook }, channel(id)),
  rotateSecret: (id: string) => api.post('/channels/{channel_id}/webhook/secret', undefined, channel(id)),
  sendTestEvent: (id: string) => api.post('/channels/{channel_id}/webhook/test', undefined, channel(id)),
  deliveries: (id: string, query: { status?: DeliveryStatus; max: number; offset: number }, signal?: AbortSignal) =>
    api.page('/v1/channels/{channel_id}/webhook/deliveries', { ...channel(id), query, signal }),
  redeliver: (id: string, deliveryId: string) =>
    api.post('/v1/channels/{channel_id}/webhook/deliveries/{delivery_id}/redeliver', undefined, { params: { channel_id: id, delivery_id: deliveryId } }),
  redeliverFailed: (id: string) => api.post('/channels/{channel_id}/webhook/redeliver-failed', undefined, channel(id)),

  // Each settings editor knows the settings of the types it edits (the type's `settings` names them).
  settings: <T extends ServiceChatSettings | SocialnetChatSettings>(id: string) => api.get('/v1/channels/{channel_id}/settings', channel(id)) as Promise<T>,
  updateSettings: <T extends ServiceChatSettings | SocialnetChatSettings>(id: string, patch: Partial<T>) =>
    api.patch('/v1/channels/{channel_id}/settings', patch as BodyOf<'/v1/channels/{channel_id}/settings', 'patch'>, channel(id)) as Promise<T>,

  contacts: (id: string, query: { max: number; offset: number; order?: 'newest' | 'last_activity'; q?: string }, signal?: AbortSignal) =>
    api.page('/v1/channels/{channel_id}/contacts', { ...channel(id), query, signal }),
  contact: (id: string, contactId: string) => api.get('/v1/channels/{channel_id}/contacts/{contact_id}', { params: { channel_id: id, contact_id: contactId } }),
  messages: (id: string, contactId: string, query: { max: number; offset?: number }, signal?: AbortSignal) =>
    api.page('/v1/channels/{channel_id}/contacts/{contact_id}/messages', { params: { channel_id: id, contact_id: contactId }, query, signal }),
  send: (body: BodyOf<'/v1/messages', 'post'>) => api.post('/v1/messages', body),
  message: (messageId: string, signal?: AbortSignal) => api.get('/v1/messages/{message_id}', { params: { message_id: messageId }, signal }),

  trial: () => api.get('/trial'),
  trialSend: (id: string, body: BodyOf<'/trial/channels/{channel_id}/messages', 'post'>) =>
    api.post('/trial/channels/{channel_id}/messages', body, channel(id)),
};
