import { randomBytes } from 'node:crypto';
import {
  defineConnector,
  type ChannelContext,
  type ChannelInput,
  type FetchedMedia,
  type InboundCall,
  type OutboundMessage,
  type OutboundNotification,
  type PlatformFile,
  type PlatformResult,
  type Recipient,
  type SendReceipt,
  type VerifiedChannel,
} from '../connector.js';
import { fileNameFor, fileNameFromUrl } from '../http.js';
import { BotApi } from './api.js';
import { messageKey, parseUpdate } from './inbound.js';
import { ALLOWED_UPDATES, type BotmsgOptions } from './options.js';
import { renderSend } from './render.js';

/**
 * botmsg: a bot platform reached through its Bot API with the bot's token. See README.md in this
 * folder for the protocol, credentials and limits.
 */
type Json = Record<string, unknown>;

/** The webhook's secret token: 1-256 characters of A-Z a-z 0-9 _ -. */
function newSecretToken(): string {
  return randomBytes(32).toString('hex');
}

function tokenOf(channel: ChannelContext): string {
  return channel.secrets.access_token ?? '';
}

/** The endpoint of a channel's inbound URL the bot's webhook is registered at. */
export const UPDATES_ENDPOINT = 'updates';

/** The roles botmsg plays: credential check, send, typing, the channel's own inbound URL, file downloads. */
export function createBotmsgConnector(options: BotmsgOptions) {
  const api = new BotApi(options.apiUrl, options.timeoutMs);

  const verifier = {
    /** getMe reads the bot's name and username; setWebhook points the bot at the channel's inbound URL with a secret token. */
    async verifyChannel(input: ChannelInput): Promise<PlatformResult<VerifiedChannel>> {
      const token = input.secrets.access_token ?? '';
      const me = await api.call(token, 'getMe');
      if (!me.ok) return me.retryable ? me : { ...me, field: 'botmsg.access_token' };
      const bot = (me.value ?? {}) as Json;
      if (bot.is_bot !== true)
        return { ok: false, retryable: false, code: 'not_a_bot', message: 'The token does not belong to a bot.', field: 'botmsg.access_token' };
      if (!input.id) return { ok: false, retryable: false, code: 'no_channel', message: 'The channel id is needed to register the webhook.' };
      const secret = input.secrets.webhook_secret ?? newSecretToken();
      const url = options.inboundUrl(input.id, UPDATES_ENDPOINT);
      const hooked = await api.call(token, 'setWebhook', { url, secret_token: secret, allowed_updates: ALLOWED_UPDATES });
      if (!hooked.ok) return { ...hooked, retryable: true, message: `The platform did not accept the service's webhook ${url}: ${hooked.message}` };
      const config: Json = {};
      const name = [bot.first_name, bot.last_name].filter((n): n is string => typeof n === 'string' && n !== '').join(' ');
      if (name !== '') config.name = name;
      if (typeof bot.username === 'string') config.username = bot.username;
      if (bot.id !== undefined) config.bot_id = String(bot.id);
      return { ok: true, value: { config, secrets: { access_token: token, webhook_secret: secret } } };
    },
  };

  const sender = {
    async send(channel: ChannelContext, recipient: Recipient, message: OutboundMessage): Promise<PlatformResult<SendReceipt>> {
      const chatId = recipient.externalId;
      if (!chatId) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no chat with the bot.' };
      const call = renderSend(chatId, message.content);
      if (!call.ok) return call;
      const sent = await api.call(tokenOf(channel), call.value.method, call.value.params);
      if (!sent.ok) return sent;
      const key = messageKey(chatId, ((sent.value ?? {}) as Json).message_id);
      return { ok: true, value: { externalIds: key === undefined ? [] : [key] } };
    },
  };

  const notifications = {
    async sendNotification(channel: ChannelContext, recipient: Recipient, notification: OutboundNotification): Promise<PlatformResult<null>> {
      if (notification.type !== 'typing_on')
        return { ok: false, retryable: false, code: 'unsupported', message: `botmsg has no notification of type '${notification.type}'.` };
      if (!recipient.externalId) return { ok: false, retryable: false, code: 'no_recipient', message: 'The contact has no chat with the bot.' };
      const sent = await api.call(tokenOf(channel), 'sendChatAction', { chat_id: recipient.externalId, action: 'typing' });
      return sent.ok ? { ok: true, value: null } : sent;
    },
  };

  const channelInbound = {
    endpoints: [{ name: UPDATES_ENDPOINT, methods: ['POST'] }] as const,
    parse: (call: InboundCall, channel: ChannelContext) => parseUpdate(call, options.secretHeaderName, channel.secrets.webhook_secret),
  };

  const media = {
    /** getFile gives the file's path; the bytes are downloaded from the file URL with the bot's token. */
    async fetchMedia(channel: ChannelContext, media: PlatformFile): Promise<PlatformResult<FetchedMedia>> {
      const token = tokenOf(channel);
      const file = await api.call(token, 'getFile', { file_id: media.ref });
      if (!file.ok) return file;
      const path = ((file.value ?? {}) as Json).file_path;
      if (typeof path !== 'string') return { ok: false, retryable: false, code: 'no_file', message: 'The platform gave no path for the file.' };
      const got = await options.media.download(api.fileUrl(token, path), options.timeoutMs, options.maxMediaBytes);
      if (!got.ok) return got;
      const mimeType = media.mimeType ?? got.value.contentType;
      return { ok: true, value: { bytes: got.value.bytes, mimeType, name: media.name ?? fileNameFromUrl(`http://x/${path}`, fileNameFor('file', mimeType)) } };
    },
  };

  return defineConnector('botmsg', { verifier, sender, notifications, channelInbound, media });
}
