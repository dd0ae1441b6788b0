import type { StandInBaseState } from '../shared/standin.js';
import type { MediaStore } from '../shared/media-store.js';
import type { JsonRecord } from '../shared/values.js';

// In-memory model: bots with their webhook and update queue, users (private chats), messages,
// files, callback queries.

export interface BmWebhook {
  url: string;
  secretToken: string | null;
  maxConnections: number;
  /** null = default set (everything except chat_member, message_reaction, message_reaction_count). */
  allowedUpdates: string[] | null;
  ipAddress: string | null;
  lastErrorDate: number | null;
  lastErrorMessage: string | null;
}

export interface BmUpdate {
  updateId: number;
  type: string;
  body: JsonRecord;
  createdAt: number;
  /** pending until delivered by webhook or confirmed through getUpdates. */
  status: 'pending' | 'delivered' | 'confirmed' | 'dropped';
  attempts: number;
}

export interface BmBot {
  id: number;
  token: string;
  revokedTokens: string[];
  username: string;
  firstName: string;
  canJoinGroups: boolean;
  canReadAllGroupMessages: boolean;
  supportsInlineQueries: boolean;
  webhook: BmWebhook | null;
  /** Allowed updates remembered between setWebhook/getUpdates calls (omitted = previous). */
  allowedUpdates: string[] | null;
  nextUpdateId: number;
  updates: BmUpdate[];
}

export interface BmUser {
  id: number;
  botId: number;
  firstName: string;
  lastName: string | null;
  username: string | null;
  languageCode: string;
  phoneNumber: string | null;
  started: boolean;
  blocked: boolean;
  deactivated: boolean;
  /** Next message_id in this private chat (ids count per chat). */
  nextMessageId: number;
}

export interface BmMessage {
  botId: number;
  chatId: number;
  messageId: number;
  fromBot: boolean;
  /** Send method that produced it, or the user action. */
  method: string;
  /** Parameters as the service sent them (bot messages only). */
  params: JsonRecord | null;
  /** The Message object as returned to the service / put into updates. */
  message: JsonRecord;
  deleted: boolean;
}

export interface BmFile {
  fileId: string;
  fileUniqueId: string;
  botId: number;
  kind: string;
  mediaId: string;
  fileSize: number;
  filePath: string;
  mimeType: string;
  fileName: string;
  width: number | null;
  height: number | null;
}

export interface BmCallbackQuery {
  id: string;
  botId: number;
  userId: number;
  messageId: number;
  data: string;
  createdAt: number;
  answer: { text: string | null; showAlert: boolean; url: string | null; cacheTime: number; at: number } | null;
}

export interface BmChatAction {
  botId: number;
  chatId: number;
  action: string;
  at: number;
}

export interface BotmsgState extends StandInBaseState {
  bots: Map<number, BmBot>;
  users: Map<string, BmUser>;
  messages: BmMessage[];
  files: Map<string, BmFile>;
  callbackQueries: Map<string, BmCallbackQuery>;
  chatActions: BmChatAction[];
  media: MediaStore;
  baseUrl: string | undefined;
}

export const userKey = (botId: number, userId: number): string => `${botId}:${userId}`;

export function resetState(state: BotmsgState): void {
  state.bots.clear();
  state.users.clear();
  state.messages.length = 0;
  state.files.clear();
  state.callbackQueries.clear();
  state.chatActions.length = 0;
  state.faults.clear();
  state.requests.clear();
  state.webhooks.clear();
  state.media.clear();
}
