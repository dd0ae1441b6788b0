import {
  defineConnector,
  type ChannelContext,
  type ChannelInput,
  type FetchedMedia,
  type OutboundMessage,
  type OutboundNotification,
  type PlatformChannelState,
  type PlatformFailure,
  type PlatformFile,
  type PlatformResult,
  type PlatformProfile,
  type Recipient,
  type SendReceipt,
} from '../connector.js';
import { fileNameFor, fileNameFromUrl } from '../http.js';
import { GraphClient } from './graph.js';
import { handshake, parseWebhook } from './inbound.js';
import { PAGE_CONNECTED, PAGE_DISCONNECTED, type SocialnetChatOptions } from './options.js';
import { renderMessage, renderMessaging, renderRecipient, SENDER_ACTIONS } from './render.js';
import { profileChange } from './settings.js';
import { verifyPage } from './verify.js';

/**
 * socialnet_chat: a messenger-style platform reached through its versioned Graph-style API with
 * a page access token. See README.md in this folder for the protocol, credentials and limits.
 *
 * The profile fields the specification's Contact shows: name, gender, time zone, picture. `gender`
 * and `timezone` need the platform's app review; an app without it gets the whole call refused
 * with code 100, subcode 2018247, and then asks for the fields every app may read.
 */
export const PROFILE_FIELDS = 'first_name,last_name,profile_pic,gender,timezone';
export const BASIC_PROFILE_FIELDS = 'first_name,last_name,profile_pic';
export const PROFILE_NOT_REVIEWED = '100/2018247';

function tokenOf(channel: ChannelContext): string {
  return channel.secrets.access_token ?? '';
}

function pageOf(channel: ChannelContext): string {
  return String(channel.config.id ?? 'me');
}

/** The roles socialnet_chat plays: every one but local delivery, state requests, testers and channel-scoped inbound. */
export function createSocialnetChatConnector(options: SocialnetChatOptions) {
  const graph = new GraphClient(options);

  /** A page whose token the platform refuses (code 190: expired, password changed, app removed) is disconnected. */
  const disconnectedState = (failure: PlatformFailure): PlatformChannelState => ({
    state: PAGE_DISCONNECTED,
    platformState: 'token refused (190)',
    reach: 'nobody',
    reason: failure.message,
  });

  /** Passes a call's result on, telling the service first when it showed the page disconnected. */
  function watched<T>(channel: ChannelContext, result: PlatformResult<T>): PlatformResult<T> {
    if (!result.ok && result.code === 'disconnected') options.channelStates?.report(channel, disconnectedState(result));
    return result;
  }

  const channelState = {
    /** Get Channel with `?refresh=true`: the page read with its token tells whether it is connected. */
    async readState(channel: ChannelContext): Promise<PlatformResult<PlatformChannelState>> {
      const page = await graph.get(pageOf(channel), { fields: 'name' }, tokenOf(channel));
      if (page.ok) return { ok: true, value: { state: PAGE_CONNECTED, platformState: 'token valid', reach: 'anyone' } };
      if (page.code === 'disconnected') return { ok: true, value: disconnectedState(page) };
      return page;
    },
  };

  const verifier = { verifyChannel: (input: ChannelInput) => verifyPage(graph, options, input) };

  const sender = {
    async send(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>> {
      return watched(channel, await sendMessage(channel, recipient, message));
    },
  };

  async function sendMessage(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>> {
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
    const receipt: SendReceipt = { externalIds: typeof sent.value.message_id === 'string' ? [sent.value.message_id] : [] };
    if (!recipient.externalId && typeof sent.value.recipient_id === 'string') receipt.contactExternalId = sent.value.recipient_id;
    return { ok: true, value: receipt };
  }

  const notifications = {
    async sendNotification(channel: ChannelContext, recipient: Recipient, notification: OutboundNotification): Promise<PlatformResult<null>> {
      const action = SENDER_ACTIONS[notification.type];
      if (!action) return { ok: false, retryable: false, code: 'unsupported', message: `socialnet_chat has no notification of type '${notification.type}'.` };
      if (!recipient.externalId)
        return {
          ok: false,
          retryable: false,
          code: 'no_recipient',
          message: 'The contact has not written to the page yet, so the platform cannot show it a notification.',
        };
      const sent = watched(
        channel,
        await graph.post(`${pageOf(channel)}/messages`, { recipient: { id: recipient.externalId }, sender_action: action }, tokenOf(channel)),
      );
      return sent.ok ? { ok: true, value: null } : sent;
    },
  };

  const settingsPusher = {
    async pushSettings(channel: ChannelContext, settings: Record<string, unknown>, changed: readonly string[]): Promise<PlatformResult<null>> {
      const change = profileChange(settings, changed);
      if (!change.ok) return change;
      const path = `me/${options.profileEdge}`;
      if (change.value.set) {
        const posted = watched(channel, await graph.post(path, change.value.set, tokenOf(channel)));
        if (!posted.ok) return posted;
      }
      if (change.value.remove.length > 0) {
        const removed = watched(channel, await graph.delete(path, { fields: change.value.remove }, tokenOf(channel)));
        if (!removed.ok) return removed;
      }
      return { ok: true, value: null };
    },
  };

  const media = {
    async fetchMedia(_channel: ChannelContext, media: PlatformFile): Promise<PlatformResult<FetchedMedia>> {
      // Attachment and profile picture URLs are served by the platform's CDN without a token.
      const got = await options.media.download(media.ref, options.timeoutMs, options.maxMediaBytes);
      if (!got.ok) return got;
      const mimeType = media.mimeType ?? got.value.contentType;
      return { ok: true, value: { bytes: got.value.bytes, mimeType, name: media.name ?? fileNameFromUrl(media.ref, fileNameFor('file', mimeType)) } };
    },
  };

  const profiles = {
    async fetchProfile(channel: ChannelContext, recipient: Recipient): Promise<PlatformResult<PlatformProfile>> {
      if (!recipient.externalId) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no platform id yet.' };
      let got = await graph.get(recipient.externalId, { fields: PROFILE_FIELDS }, tokenOf(channel));
      if (!got.ok && got.code === PROFILE_NOT_REVIEWED) got = await graph.get(recipient.externalId, { fields: BASIC_PROFILE_FIELDS }, tokenOf(channel));
      if (!got.ok) return watched(channel, got);
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

  return defineConnector('socialnet_chat', {
    verifier,
    sender,
    notifications,
    settings: settingsPusher,
    // One callback URL for the app: each event names its page, the channel's config `id`.
    appInbound: { channelKeyField: 'id', parse: (call) => parseWebhook(call, options.appSecret, options.appId) },
    handshake: { answerHandshake: (call) => handshake(call, options.verifyToken) },
    media,
    profiles,
    channelState,
  });
}
