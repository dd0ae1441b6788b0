import { api } from '../api';
import type { Channel, Contact, Delivery, DeliveryStatus, Message, ServiceChatSettings, SocialnetChatSettings } from './types';

/** Every call the channel tabs make: the /v1 routes under /admin/api/v1 and the app-only helpers. */
const v1 = (id: string) => `/v1/channels/${encodeURIComponent(id)}`;
const app = (id: string) => `/channels/${encodeURIComponent(id)}`;

export const channelApi = {
  get: (id: string) => api.get<Channel>(v1(id)),
  setWebhook: (id: string, webhook: { url: string; ssl_verification: boolean } | null) => api.patch<Channel>(v1(id), { webhook }),
  rotateSecret: (id: string) => api.post<Channel>(`${app(id)}/webhook/secret`),
  sendTestEvent: (id: string) => api.post<{ delivery_id: string }>(`${app(id)}/webhook/test`),
  deliveries: (id: string, query: { status?: DeliveryStatus; max: number; offset: number }, signal?: AbortSignal) =>
    api.page<Delivery>(`${v1(id)}/webhook/deliveries`, query, signal),
  redeliver: (id: string, deliveryId: string) => api.post<Delivery>(`${v1(id)}/webhook/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
  redeliverFailed: (id: string) => api.post<{ redelivered: number }>(`${app(id)}/webhook/redeliver-failed`),

  settings: <T extends ServiceChatSettings | SocialnetChatSettings>(id: string) => api.get<T>(`${v1(id)}/settings`),
  updateSettings: <T extends ServiceChatSettings | SocialnetChatSettings>(id: string, patch: Partial<T>) => api.patch<T>(`${v1(id)}/settings`, patch),

  contacts: (id: string, query: { max: number; offset: number; order?: 'newest' | 'last_activity'; q?: string }, signal?: AbortSignal) =>
    api.page<Contact>(`${v1(id)}/contacts`, query, signal),
  contact: (id: string, contactId: string) => api.get<Contact>(`${v1(id)}/contacts/${encodeURIComponent(contactId)}`),
  messages: (id: string, contactId: string, query: { max: number; offset?: number }, signal?: AbortSignal) =>
    api.page<Message>(`${v1(id)}/contacts/${encodeURIComponent(contactId)}/messages`, query, signal),
  send: (body: { channel: { id: string }; contact: { id: string }; content: unknown }) => api.post<Message>('/v1/messages', body),

  trial: () => api.get<{ available: boolean; sandbox_url: string | null }>('/trial'),
  trialSend: (id: string, body: { text: string; contact?: string }) => api.post<unknown>(`/trial${app(id)}/messages`, body),
};
