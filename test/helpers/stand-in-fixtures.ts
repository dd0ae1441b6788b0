/**
 * Inbound platform calls for connector unit tests, built with the stand-ins' own code: the
 * envelope, JSON escaping and signature headers the socialnet_chat stand-in sends, and its event
 * builders. A connector's parsing is then tested without a server, a database or a socket, on
 * the bytes the stand-in would have sent; the end-to-end suites keep the whole path.
 */
import type { InboundCall } from '../../src/connectors/connector.js';
import { deliveryEvent, echoEvent, readEvent } from '../../sandbox/socialnet_chat/events.js';
import { escapedJson, signatureHeaders } from '../../sandbox/socialnet_chat/webhooks.js';
import type { SnSentMessage } from '../../sandbox/socialnet_chat/state.js';

type Json = Record<string, unknown>;

export const socialnetChat = {
  /** A webhook call as the stand-in sends it: one page's events in the envelope, escaped, signed with the app secret. */
  webhookCall(appSecret: string, pageId: string, events: Json[], time = Date.now()): InboundCall {
    const body = escapedJson({ object: 'page', entry: [{ id: pageId, time, messaging: events }] });
    return {
      method: 'POST',
      endpoint: 'webhook',
      url: 'http://127.0.0.1/v1/inbound/1/webhook',
      headers: { 'content-type': 'application/json', ...signatureHeaders(appSecret, body) },
      query: {},
      rawBody: Buffer.from(body, 'utf8'),
    };
  },
  /** A user's message as the stand-in's control API makes it (`message` is the platform's message object). */
  userMessage(pageId: string, psid: string, message: Json, at = Date.now()): Json {
    return { sender: { id: psid }, recipient: { id: pageId }, timestamp: at, message };
  },
  deliveryEvent,
  readEvent,
  /** The echo of a message the page sent (through the API or from the inbox of another app). */
  echoEvent(sent: Pick<SnSentMessage, 'mid' | 'pageId' | 'message' | 'sentAt'>, psid: string, appId: string): Json {
    return echoEvent(sent as SnSentMessage, psid, appId);
  },
};
