import type { StandInBaseState } from '../shared/standin.js';
import type { MediaStore } from '../shared/media-store.js';
import type { JsonRecord } from '../shared/values.js';

// In-memory model of the platform: one app, pages with their admins and tokens, page-scoped users,
// and everything the service sent.

/** Why a token stopped working; each maps to a code-190 subcode. */
export type TokenInvalidReason = 'deauthorized' | 'password_changed' | 'expired' | 'logged_out';

export interface SnSubscription {
  callbackUrl: string;
  verifyToken: string;
  fields: string[];
  active: boolean;
}

export interface SnApp {
  id: string;
  secret: string;
  name: string;
  requireAppSecretProof: boolean;
  /** The app review that opens `gender`, `timezone` and `locale` of user profiles. */
  profileFieldsReviewed: boolean;
  subscription: SnSubscription | null;
}

/** A person who administers pages (owner of user tokens). */
export interface SnAdmin {
  id: string;
  name: string;
  pageIds: string[];
}

export interface SnPage {
  id: string;
  name: string;
  category: string;
  adminId: string;
  /** false after a disconnect: every page token fails with code 190. */
  connected: boolean;
  disconnectReason: TokenInvalidReason | null;
  /** Fields the page subscribed the app to (POST /{page}/subscribed_apps). */
  subscribedFields: string[];
  /** Profile properties (get_started, persistent_menu, whitelisted_domains, ...). */
  profile: JsonRecord;
  profileChanges: Array<{ at: number; method: 'POST' | 'DELETE'; body: unknown }>;
}

export interface SnToken {
  token: string;
  kind: 'user' | 'page';
  adminId: string;
  pageId: string | null;
  issuedAt: number;
  /** ms since epoch; null = never expires. */
  expiresAt: number | null;
  longLived: boolean;
  scopes: string[];
  invalidReason: TokenInvalidReason | null;
}

export interface SnUser {
  psid: string;
  pageId: string;
  firstName: string;
  lastName: string;
  gender: string;
  locale: string;
  timezone: number;
  phoneNumber: string | null;
  profilePicMediaId: string;
  blocked: boolean;
  /** The user started the conversation (message, get started, opt-in, accepted request). */
  started: boolean;
  lastInboundAt: number | null;
}

export interface SnRecipient {
  psid?: string;
  userRef?: string;
  phoneNumber?: string;
}

export interface SnSentMessage {
  mid: string;
  pageId: string;
  recipient: SnRecipient;
  messagingType: string | null;
  tag: string | null;
  notificationType: string;
  /** The `message` object as the service sent it (after form decoding). */
  message: JsonRecord;
  sentAt: number;
  deliveredAt: number | null;
  readAt: number | null;
  /** 'api' = through the Send API; 'inbox' = typed by a page admin in the page inbox (control API). */
  source: 'api' | 'inbox';
  attachmentId: string | null;
  /** The media the platform fetched or received for an attachment message. */
  media: SnMediaInfo | null;
}

export interface SnMediaInfo {
  /** URL under which the stand-in serves its copy. */
  url: string;
  sourceUrl: string | null;
  contentType: string;
  size: number;
}

export interface SnSenderAction {
  pageId: string;
  psid: string;
  action: string;
  at: number;
}

export interface SnInboundMessage {
  mid: string;
  pageId: string;
  psid: string;
  at: number;
  message: JsonRecord;
}

export interface SnPhoneRequest {
  pageId: string;
  phoneDigits: string;
  phoneNumber: string;
  name: JsonRecord | null;
  mids: string[];
  createdAt: number;
  acceptedBy: string | null;
}

export interface SnUserRef {
  userRef: string;
  pageId: string;
  ref: string | null;
  psid: string | null;
  createdAt: number;
  messagesSent: number;
}

export interface SnAttachment {
  id: string;
  pageId: string;
  type: string;
  url: string | null;
  mediaId: string | null;
  createdAt: number;
}

export interface SocialnetChatState extends StandInBaseState {
  app: SnApp;
  admins: Map<string, SnAdmin>;
  pages: Map<string, SnPage>;
  tokens: Map<string, SnToken>;
  users: Map<string, SnUser>;
  sentMessages: SnSentMessage[];
  senderActions: SnSenderAction[];
  inboundMessages: SnInboundMessage[];
  phoneRequests: SnPhoneRequest[];
  userRefs: Map<string, SnUserRef>;
  attachments: Map<string, SnAttachment>;
  media: MediaStore;
  baseUrl: string | undefined;
}

export function resetState(state: SocialnetChatState): void {
  state.app.subscription = null;
  state.admins.clear();
  state.pages.clear();
  state.tokens.clear();
  state.users.clear();
  state.sentMessages.length = 0;
  state.senderActions.length = 0;
  state.inboundMessages.length = 0;
  state.phoneRequests.length = 0;
  state.userRefs.clear();
  state.attachments.clear();
  state.faults.clear();
  state.requests.clear();
  state.webhooks.clear();
  state.media.clear();
}
