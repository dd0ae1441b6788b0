import type { ChannelContext, Connector, FetchedMedia, InboundMedia, PlatformResult, PlatformProfile, Recipient, SendReceipt } from '../connector.js';
import { fileNameFor, fileNameFromUrl } from '../http.js';
import { GraphClient } from './graph.js';
import { handshake, parseWebhook } from './inbound.js';
import type { SocialnetChatOptions } from './options.js';
import { renderMessage, renderMessaging, renderRecipient, SENDER_ACTIONS } from './render.js';
import { profileChange } from './settings.js';
import { verifyPage } from './verify.js';

/**
 * socialnet_chat: a messenger-style platform reached through its versioned Graph-style API with
 * a page access token. See README.md in this folder for the protocol, credentials and limits.
 */
const PROFILE_FIELDS = 'first_name,last_name,profile_pic,gender,timezone,locale';

function tokenOf(channel: ChannelContext): string {
  return channel.secrets.access_token ?? '';
}

function pageOf(channel: ChannelContext): string {
  return String(channel.config.id ?? 'me');
}

export function createSocialnetChatConnector(options: SocialnetChatOptions): Connector {
  const graph = new GraphClient(options);

  return {
    type: 'socialnet_chat',
    inboundScope: 'app',

    verifyChannel: (input) => verifyPage(graph, options, input),

    async send(channel, recipient, message): Promise<PlatformResult<SendReceipt>> {
      const to = renderRecipient(recipient);
      if (!to) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no id, user_ref or phone number the platform knows.' };
      const rendered = renderMessage(message.content, message.metadata);
      if (!rendered.ok) return rendered;
      const sent = await graph.post(
        `${pageOf(channel)}/messages`,
        { recipient: to, ...renderMessaging(message.metadata), message: rendered.value },
        tokenOf(channel),
      );
      if (!sent.ok) return sent;
      const receipt: SendReceipt = { externalId: typeof sent.value.message_id === 'string' ? sent.value.message_id : null };
      if (!recipient.externalId && typeof sent.value.recipient_id === 'string') receipt.contactExternalId = sent.value.recipient_id;
      return { ok: true, value: receipt };
    },

    async sendNotification(channel, recipient, notification): Promise<PlatformResult<null>> {
      const action = SENDER_ACTIONS[notification.type];
      if (!action) return { ok: false, retryable: false, code: 'unsupported', message: `socialnet_chat has no notification of type '${notification.type}'.` };
      if (!recipient.externalId)
        return {
          ok: false,
          retryable: false,
          code: 'no_recipient',
          message: 'The contact has not written to the page yet, so the platform cannot show it a notification.',
        };
      const sent = await graph.post(`${pageOf(channel)}/messages`, { recipient: { id: recipient.externalId }, sender_action: action }, tokenOf(channel));
      return sent.ok ? { ok: true, value: null } : sent;
    },

    async pushSettings(channel, settings, changed): Promise<PlatformResult<null>> {
      const change = profileChange(settings, changed);
      if (!change.ok) return change;
      const path = `me/${options.profileEdge}`;
      if (change.value.set) {
        const posted = await graph.post(path, change.value.set, tokenOf(channel));
        if (!posted.ok) return posted;
      }
      if (change.value.remove.length > 0) {
        const removed = await graph.delete(path, { fields: change.value.remove }, tokenOf(channel));
        if (!removed.ok) return removed;
      }
      return { ok: true, value: null };
    },

    answerHandshake: (call) => handshake(call, options.verifyToken),

    parseInbound: (call) => parseWebhook(call, options.appSecret, options.appId),

    channelKeyField: 'id',

    async fetchMedia(_channel, media: InboundMedia): Promise<PlatformResult<FetchedMedia>> {
      // Attachment and profile picture URLs are served by the platform's CDN without a token.
      const got = await options.media.download(media.ref, options.timeoutMs, options.maxMediaBytes);
      if (!got.ok) return got;
      const mimeType = media.mimeType ?? got.value.contentType;
      return { ok: true, value: { bytes: got.value.bytes, mimeType, name: media.name ?? fileNameFromUrl(media.ref, fileNameFor('file', mimeType)) } };
    },

    async fetchProfile(channel, recipient: Recipient): Promise<PlatformResult<PlatformProfile>> {
      if (!recipient.externalId) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no platform id yet.' };
      const got = await graph.get(recipient.externalId, { fields: PROFILE_FIELDS }, tokenOf(channel));
      if (!got.ok) return got;
      const p = got.value;
      const first = typeof p.first_name === 'string' ? p.first_name : '';
      const last = typeof p.last_name === 'string' ? p.last_name : '';
      const profile: PlatformProfile = { extra: {} };
      const name = `${first} ${last}`.trim();
      if (name !== '') profile.name = name;
      if (first !== '') profile.extra!.first_name = first;
      if (last !== '') profile.extra!.last_name = last;
      if (typeof p.locale === 'string') profile.extra!.locale = p.locale;
      if (p.gender === 'male' || p.gender === 'female') profile.gender = p.gender;
      if (typeof p.timezone === 'number' || typeof p.timezone === 'string') profile.timeZone = String(p.timezone);
      if (typeof p.profile_pic === 'string' && p.profile_pic !== '') profile.photo = { ref: p.profile_pic };
      return { ok: true, value: profile };
    },
  };
}
