import { ConnectorRegistry, type Connector, type OutboundMessage, type Recipient } from '../../src/connectors/connector.js';
import type { ApiClient } from '../helpers/api-client.js';
import type { TestServer } from '../helpers/runtime.js';

/** Create bodies of every channel type (no connector verifies credentials in these tests). */
export function channelBody(type: string, mode?: string): Record<string, unknown> {
  const base: Record<string, unknown> = { type, name: `${type} channel`, ...(mode ? { mode } : {}) };
  switch (type) {
    case 'socialnet_chat':
      return { ...base, socialnet_page: { id: '1001', access_token: 'page-token' } };
    case 'mobile':
      return { ...base, provider: { type: 'smsprovider', sender_id: 'Parley', access_token: 'key', signing_key: 'sign' } };
    case 'rbm':
      return { ...base, rbm: { agent_name: 'Agent' } };
    case 'appmsg':
      return { ...base, appmsg: { access_token: 'token' } };
    case 'appmsg_business_messages':
      return { ...base, appmsg_business_messages: { sender_id: '1234' } };
    case 'botmsg':
      return { ...base, botmsg: { access_token: 'token' } };
    case 'email':
      return { ...base, provider: { type: 'mailprovider', access_token: 'key', sender: { email: 'shop@example.com', name: 'Shop' } } };
    default:
      return base;
  }
}

export async function createChannel(api: ApiClient, type: string, mode?: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post('/v1/channels', { ...channelBody(type, mode), ...extra });
  if (res.status !== 201) throw new Error(`channel create failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

export interface SentCall {
  recipient: Recipient;
  message: OutboundMessage;
}

/**
 * Connectors for the direct (synchronous) path: socialnet_chat accepts every send, botmsg
 * refuses every send; appmsg has none (502, nothing stored). The asynchronous types have a
 * sender too, so their production sends are queued (the send worker would call it; these servers
 * run no workers).
 */
export function fakeConnectors(): { registry: ConnectorRegistry; calls: SentCall[] } {
  const calls: SentCall[] = [];
  let n = 0;
  const accepting: Connector = {
    type: 'socialnet_chat',
    roles: {
      sender: {
        async send(_channel, recipient, message) {
          calls.push({ recipient, message });
          n += 1;
          return { ok: true, value: { externalIds: [`mid.${n}`] } };
        },
      },
    },
  };
  const refusing: Connector = {
    type: 'botmsg',
    roles: {
      sender: {
        async send(_channel, recipient, message) {
          calls.push({ recipient, message });
          return { ok: false, retryable: false, code: '403', message: 'Forbidden: bot was blocked by the user' };
        },
      },
    },
  };
  const registry = new ConnectorRegistry().register(accepting).register(refusing);
  for (const type of ['mobile', 'rbm', 'appmsg_business_messages', 'email'] as const) {
    registry.register({
      type,
      roles: {
        sender: {
          async send(_channel, recipient, message) {
            calls.push({ recipient, message });
            n += 1;
            return { ok: true, value: { externalIds: [`${type}.${n}`] } };
          },
        },
      },
    });
  }
  return { registry, calls };
}

export async function count(
  s: TestServer,
  table: 'messages' | 'contacts' | 'events' | 'deliveries' | 'jobs' | 'files',
  where: Record<string, unknown> = {},
): Promise<number> {
  let q = s.runtime.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
  for (const [k, v] of Object.entries(where)) q = q.where(k as never, '=', v as never);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

export function send(
  api: ApiClient,
  channelId: string,
  contact: Record<string, unknown>,
  content: unknown,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
) {
  return api.post('/v1/messages', { channel: { id: channelId }, contact, content, ...extra }, headers);
}
