import type { StandInBaseState } from '../shared/standin.js';
import type { MediaStore } from '../shared/media-store.js';
import type { JsonRecord } from '../shared/values.js';

// Bots ("accounts" of the API), users and the messages between them.

export interface AmWebhook {
  url: string;
  eventTypes: string[];
  sendName: boolean;
  sendPhoto: boolean;
}

export interface AmBot {
  id: string;
  token: string;
  name: string;
  uri: string;
  icon: string;
  background: string;
  category: string;
  subcategory: string;
  country: string;
  location: { lat: number; lon: number };
  webhook: AmWebhook | null;
  blocked: boolean;
}

export interface AmUser {
  id: string;
  botId: string;
  name: string;
  avatar: string;
  country: string;
  language: string;
  apiVersion: number;
  primaryDeviceOs: string;
  deviceType: string;
  subscribed: boolean;
  /** Registered on the platform at all (false: status 5 on send). */
  registered: boolean;
  online: boolean;
  lastInboundAt: number | null;
  detailCalls: number[];
}

export interface AmSentMessage {
  token: bigint;
  botId: string;
  receiver: string;
  /** The send_message body as received (or the welcome message of conversation_started). */
  body: JsonRecord;
  source: 'send_message' | 'broadcast_message' | 'welcome';
  sentAt: number;
  deliveredAt: number | null;
  seenAt: number | null;
  failed: string | null;
}

export interface AppmsgState extends StandInBaseState {
  bots: Map<string, AmBot>;
  users: Map<string, AmUser>;
  sent: AmSentMessage[];
  media: MediaStore;
  nextToken: bigint;
}

export const userKey = (botId: string, userId: string): string => `${botId}/${userId}`;
