import { randomBytes } from 'node:crypto';
import {
  defineConnector,
  type ChannelContext,
  type ChannelInput,
  type InboundCall,
  type OutboundMessage,
  type PlatformResult,
  type Recipient,
  type SendReceipt,
  type VerifiedChannel,
} from '../connector.js';
import { PartnerApi } from './api.js';
import { FileSizeReader } from './file-size.js';
import { parseCallback } from './inbound.js';
import { CALLBACKS_ENDPOINT, VIDEO_MAX_BYTES, type AppmsgBusinessOptions } from './options.js';
import { renderMessage } from './render.js';

/**
 * appmsg_business_messages: business messages to phone numbers through the partner API, sent by
 * the send worker. See README.md in this folder for the request, the status codes, the callbacks
 * and the limits.
 */

/** The sender id a channel sends under: its own, or the common one in mode `shared`. */
function senderIdOf(channel: ChannelContext, options: AppmsgBusinessOptions): string | null {
  if (channel.mode === 'shared') return options.sharedSenderId;
  return typeof channel.config.sender_id === 'string' ? channel.config.sender_id : null;
}

export function createAppmsgBusinessConnector(options: AppmsgBusinessOptions) {
  const api = new PartnerApi(`${options.apiUrl.replace(/\/+$/, '')}/${options.pathSegment}/1/send_message`, options.timeoutMs);
  const sizes = new FileSizeReader(options.mediaAllowlist, options.timeoutMs);

  const verifier = {
    /**
     * The partner API has no call that reads a sender id (the platform knows the partner by its
     * addresses), so nothing is asked: the sender id's form is checked by the schema, and the
     * callback secret that signs the platform's callbacks is made here unless given. (A channel in
     * mode `shared` on a service without a common sender id fails its sends with the reason.)
     */
    async verifyChannel(input: ChannelInput): Promise<PlatformResult<VerifiedChannel>> {
      const secrets: Record<string, string> = {};
      if (!input.secrets.callback_secret) secrets.callback_secret = randomBytes(24).toString('base64url');
      return { ok: true, value: { config: {}, secrets } };
    },
  };

  const sender = {
    async send(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>> {
      const serviceId = senderIdOf(channel, options);
      if (!serviceId) {
        return {
          ok: false,
          retryable: false,
          code: 'no_shared_sender',
          message: 'This service has no common sender id for shared mode (APPMSG_BUSINESS_SHARED_SENDER_ID): use production or test mode.',
        };
      }
      let videoBytes: number | undefined;
      if (message.content.type === 'video') {
        const size = await sizes.size(message.content.payload.url);
        if (!size.ok) return size;
        if (size.value > VIDEO_MAX_BYTES) return { ok: false, retryable: false, code: '31', message: 'The video is larger than the platform takes (200 MB).' };
        videoBytes = size.value;
      }
      const body = renderMessage(channel, serviceId, recipient, message, videoBytes === undefined ? {} : { videoBytes });
      if (!body.ok) return body;
      const sent = await api.send(body.value);
      if (!sent.ok) return sent;
      return { ok: true, value: { externalIds: [sent.value.messageToken] } };
    },
  };

  const channelInbound = {
    endpoints: [{ name: CALLBACKS_ENDPOINT, methods: ['POST'] }] as const,
    parse: (call: InboundCall, channel: ChannelContext) =>
      parseCallback(call, channel, {
        callbackAuth: options.callbackAuth,
        signatureHeaderName: options.signatureHeaderName,
        statusCodes: options.statusCodes,
        sharedSenderId: options.sharedSenderId,
      }),
  };

  return defineConnector('appmsg_business_messages', { verifier, sender, channelInbound });
}
