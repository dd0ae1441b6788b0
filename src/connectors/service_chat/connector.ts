import type { Connector, PlatformResult, SendReceipt } from '../connector.js';

/**
 * service_chat is the service's own web chat: there is no outside platform to call. A message is
 * "sent" once it is stored; the chat server pushes stored messages to the contact's browser
 * (it listens for the messages the send path reports after each commit).
 */
export const serviceChatConnector: Connector = {
  type: 'service_chat',
  send(): Promise<PlatformResult<SendReceipt>> {
    return Promise.resolve({ ok: true, value: { externalId: null } });
  },
};
