/**
 * The shapes the channel tabs read from the API (the server's TypeBox schemas are the source; these
 * are the parts the app shows). Ids are decimal strings, times ISO 8601 strings.
 */
export type { Channel } from '../types';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dropped';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'dropped'];

export interface DeliveryAttempt {
  id: string;
  attempted: string;
  url: string;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

export interface Delivery {
  id: string;
  status: DeliveryStatus;
  event: { id: string; type: string; body: { event: string; timestamp: string; data: Record<string, unknown> } };
  created: string;
  updated: string;
  next_attempt: string | null;
  last_status_code: number | null;
  last_error: string | null;
  attempts: DeliveryAttempt[];
}

export interface Contact {
  id: string;
  name: string;
  phone_number?: string;
  user_ref?: string;
  email?: string;
  photo_url?: string;
}

export interface QuickReply {
  type: 'text' | 'location' | 'email' | 'phone_number';
  title?: string;
  payload?: string;
  image_url?: string;
}

export interface CardButton {
  type: 'url' | 'postback' | 'phone';
  title: string;
  payload: string;
}

export interface Card {
  title?: string;
  text?: string;
  image_url?: string;
  item_url?: string;
  buttons?: CardButton[];
}

export type Content =
  | { type: 'text'; payload: string; quick_replies?: QuickReply[] }
  | { type: 'image' | 'video' | 'audio' | 'file'; payload: { url: string }; quick_replies?: QuickReply[] }
  | { type: 'location'; payload: { latitude: number; longitude: number }; quick_replies?: QuickReply[] }
  | { type: 'structure'; payload: Card | Card[]; quick_replies?: QuickReply[] }
  | { type: 'receipt'; payload: { order_number: string; currency: string; summary: { total_cost: number } }; quick_replies?: QuickReply[] };

export interface Message {
  id: string;
  direction: 'sent' | 'received';
  sent: string;
  delivered: string | null;
  read: string | null;
  status?: string;
  error?: { code: number; message: string };
  contact: { id: string; phone_number?: string };
  content: Content;
  metadata?: Record<string, unknown>;
}

export interface ServiceChatSettings {
  domains_whitelist: string[] | null;
}

export type MenuItem = { type: 'url' | 'postback'; title: string; payload: string } | { type: 'menu'; title: string; items: MenuItem[] };

export interface SocialnetChatSettings {
  get_started_button: { payload: string } | null;
  menu: Array<{ locale: string; items: MenuItem[] }> | null;
  user_inputs: Array<{ locale: string; enabled: boolean }> | null;
  domains_whitelist: string[] | null;
}
