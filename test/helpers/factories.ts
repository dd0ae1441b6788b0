/**
 * Rows for tests, made the way the service makes them: channels with a webhook, events appended
 * through the outbox; and the webhook deliveries as the API lists them.
 */
import type { TestServer } from './runtime.js';
import type { EventType } from '../../src/schemas/events.js';

export interface HookedChannel {
  id: string;
  secret: string;
  webhookId: string;
}

export async function channelWithWebhook(s: TestServer, url: string, extra: Record<string, unknown> = {}): Promise<HookedChannel> {
  const res = await s.api.post('/v1/channels', { type: 'service_chat', name: 'hooked', webhook: { url, ...extra } });
  if (res.status !== 201) throw new Error(`channel create failed: ${res.status} ${res.text}`);
  return { id: res.body.id, secret: res.body.webhook.secret, webhookId: res.body.webhook.id };
}

/** Writes an event the way the domain does (outbox in a transaction), then wakes the worker. */
export async function appendEvent(
  s: TestServer,
  channelId: string,
  data: Record<string, unknown> = {},
  type: EventType = 'message_echo',
): Promise<{ eventId: string; deliveryId: string | null; body: string }> {
  const { services, store } = s.runtime;
  const channel = await services.channels.get(s.accountId, Number(channelId));
  const result = await store.transaction((tx) => services.outbox.append(tx, { type, channel, contactId: null, data: { channel: { id: channelId }, ...data } }));
  services.outbox.wake();
  // An event about no single message always has its row.
  if (result.eventId === null || result.body === null) throw new Error('the event was not stored');
  return { eventId: result.eventId, deliveryId: result.deliveryId, body: result.body };
}

export async function deliveries(s: TestServer, channelId: string, query = ''): Promise<any[]> {
  const res = await s.api.get(`/v1/channels/${channelId}/webhook/deliveries${query}`);
  if (res.status !== 200) throw new Error(`deliveries list failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function deliveryOf(s: TestServer, channelId: string, deliveryId: string): Promise<any> {
  const all = await deliveries(s, channelId, '?max=100');
  const found = all.find((d) => d.id === deliveryId);
  if (!found) throw new Error(`delivery ${deliveryId} not listed`);
  return found;
}
