// Shapes the app reads from the server: the app-only routes of the administration contract and
// the parts of the public /v1 resources the pages use. Ids are decimal strings, times ISO 8601.

export type Role = 'owner' | 'member';

export interface User {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  must_change_password: boolean;
}

export interface Account {
  id: string;
  name: string;
  plan: string;
}

/** What the session endpoints and the setup endpoint answer. */
export interface SessionInfo {
  user: User;
  account: Account;
  csrf_token: string;
}

/** Sign-in's answer when the password opens several accounts: no session yet, sign in again naming one. */
export interface AccountChoice {
  choose_account: Account[];
}

export interface ApiToken {
  id: string;
  name: string;
  /** The token's first characters; null for tokens made before prefixes were kept. */
  prefix: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface NewApiToken extends ApiToken {
  access_token: string;
}

export interface Usage {
  plan: string;
  hourly_limit: number;
  concurrency: number;
  window_start: string;
  used_this_hour: number;
  remaining: number;
}

export interface HourCounts {
  hour: string;
  sent: number;
  received: number;
  deliveries_failed: number;
}

export interface OverviewChannel {
  id: string;
  name: string;
  type: ChannelType;
  mode?: string;
  sent: number;
  received: number;
  deliveries_failed: number;
  hourly: HourCounts[];
}

export interface Overview {
  since: string;
  until: string;
  channels: OverviewChannel[];
}

export const CHANNEL_TYPES = ['service_chat', 'socialnet_chat', 'mobile', 'rbm', 'appmsg', 'appmsg_business_messages', 'botmsg', 'email'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export interface Webhook {
  id: string;
  url: string;
  secret: string;
  ssl_verification: string | boolean;
}

/** A channel as the /v1 API shows it: base fields plus its type's own objects. */
export interface Channel {
  id: string;
  type: ChannelType;
  name: string;
  mode?: string;
  webhook: Webhook | null;
  [typeField: string]: unknown;
}

/** A list answer of the /v1 API: the page and the x-total-count header. */
export interface Page<T> {
  items: T[];
  total: number;
}
