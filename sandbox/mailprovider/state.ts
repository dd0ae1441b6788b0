import type { StandInBaseState } from '../shared/standin.js';

// Account: API keys, webhook signing key, domains with their webhooks, routes, sent messages.

export const WEBHOOK_IDS = ['accepted', 'delivered', 'opened', 'clicked', 'unsubscribed', 'complained', 'permanent_fail', 'temporary_fail'] as const;
export type WebhookId = (typeof WEBHOOK_IDS)[number];

export interface MpDomain {
  name: string;
  webhooks: Map<WebhookId, string[]>;
}

export interface MpRoute {
  id: string;
  priority: number;
  description: string;
  expression: string;
  actions: string[];
  createdAt: number;
}

export interface MpAttachmentInfo {
  field: string;
  fileName: string;
  contentType: string;
  size: number;
}

export interface MpMessage {
  /** Message-Id without angle brackets. */
  messageId: string;
  domain: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string | null;
  html: string | null;
  tags: string[];
  userVariables: Record<string, string>;
  headers: Record<string, string>;
  options: Record<string, string>;
  attachments: MpAttachmentInfo[];
  testMode: boolean;
  createdAt: number;
  /** Every field as posted (repeatable fields in order). */
  fields: Array<[string, string]>;
}

/**
 * How a webhook is read back: `urls` (`{"webhook":{"urls":[…]}}`, today's form) or `url`, the older
 * single-URL form (`{"webhook":{"url":"…"}}`) that the official SDK's tests still show and parse.
 */
export type WebhookReadForm = 'urls' | 'url';

export interface MailproviderState extends StandInBaseState {
  apiKeys: Set<string>;
  webhookSigningKey: string;
  webhookReadForm: WebhookReadForm;
  /** Whether the account API hands the webhook signing key to an API key (`GET /v5/accounts/http_signing_key`). */
  signingKeyReadable: boolean;
  domains: Map<string, MpDomain>;
  routes: MpRoute[];
  messages: MpMessage[];
  baseUrl: string | undefined;
}
