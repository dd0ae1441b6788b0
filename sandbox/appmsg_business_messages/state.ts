import type { StandInBaseState } from '../shared/standin.js';
import type { JsonRecord } from '../shared/values.js';

// Services (sender ids bound to IPs), app users by phone number, templates, sent messages.

export interface AbService {
  serviceId: number;
  allowedIps: string[];
  callbackUrl: string | null;
  callbackSecret: string | null;
  blocked: boolean;
  billingPermitted: boolean;
  /** Sender ids made before type 206 was closed (2026-04-01) may still send plain text as 206. */
  plainTextAllowed: boolean;
}

export interface AbUser {
  phone: string;
  registered: boolean;
  suitableDevice: boolean;
  /** Services this user blocked. */
  blockedServices: Set<number>;
  /** Last reply per service (opens a session). */
  lastReplyAt: Map<number, number>;
}

export interface AbTemplate {
  templateId: string;
  lang: string;
  params: string[];
}

export interface AbMessage {
  token: string;
  sessionId: string | null;
  serviceId: number;
  dest: string;
  seq: number;
  type: number;
  label: string;
  ttl: number;
  trackingData: string | null;
  body: JsonRecord;
  sentAt: number;
  status: 'sent' | 'delivered' | 'seen' | 'expired';
}

export interface AppmsgBusinessState extends StandInBaseState {
  services: Map<number, AbService>;
  users: Map<string, AbUser>;
  templates: Map<string, AbTemplate>;
  messages: AbMessage[];
  baseUrl: string | undefined;
}
