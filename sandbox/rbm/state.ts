import type { KeyObject } from 'node:crypto';
import type { StandInBaseState } from '../shared/standin.js';
import type { MediaStore } from '../shared/media-store.js';
import type { JsonRecord } from '../shared/values.js';

// Agents (with service accounts, webhook, launch state, testers), phones (end users) and traffic.

export const LAUNCH_STATES = [
  'LAUNCH_STATE_UNSPECIFIED',
  'LAUNCH_STATE_UNLAUNCHED',
  'LAUNCH_STATE_PENDING',
  'LAUNCH_STATE_LAUNCHED',
  'LAUNCH_STATE_REJECTED',
  'LAUNCH_STATE_SUSPENDED',
  'LAUNCH_STATE_PENDING_UNLAUNCH',
] as const;

/** Verification of an agent's brand information; launch needs VERIFIED. */
export const VERIFICATION_STATES = [
  'VERIFICATION_STATE_UNSPECIFIED',
  'VERIFICATION_STATE_UNVERIFIED',
  'VERIFICATION_STATE_PENDING',
  'VERIFICATION_STATE_VERIFIED',
] as const;

export const ALL_FEATURES = [
  'RICHCARD_STANDALONE',
  'RICHCARD_CAROUSEL',
  'ACTION_CREATE_CALENDAR_EVENT',
  'ACTION_DIAL',
  'ACTION_OPEN_URL',
  'ACTION_SHARE_LOCATION',
  'ACTION_VIEW_LOCATION',
  'REVOCATION',
];

export interface RbAgent {
  id: string;
  brandId: string;
  displayName: string;
  /** Hosting region as the management API names it (NORTH_AMERICA, EUROPE, ASIA_PACIFIC). */
  region: string;
  /** The product's agent object as registered (description, logo, contacts, policies, billing), without the region. */
  profile: JsonRecord;
  serviceAccountEmail: string;
  verification: string;
  publicKey: KeyObject;
  webhook: { url: string; clientToken: string } | null;
  /** carrier (region id without its `/v1/regions/` prefix) → launch state */
  launch: Map<string, string>;
  /** carrier → the reviewer's comment on its launch (a rejection's reason) */
  launchComments: Map<string, string>;
  /** phone → PENDING | ACCEPTED | DECLINED */
  testers: Map<string, string>;
  /** When tester invitations were sent (the platform allows 20 a day). */
  testerInvites: number[];
}

/** A partner's service account: one key for every agent of the partner. */
export interface RbPartner {
  email: string;
  publicKey: KeyObject;
}

export interface RbBrand {
  id: string;
  displayName: string;
  /** Service-account e-mail of the partner that made it. */
  ownerEmail: string;
}

export interface RbPhone {
  phone: string;
  carrier: string;
  rcsEnabled: boolean;
  online: boolean;
  features: string[];
}

export interface RbAgentMessage {
  agentId: string;
  phone: string;
  messageId: string;
  body: JsonRecord;
  sendTime: number;
  deliveredAt: number | null;
  readAt: number | null;
  revoked: boolean;
}

export interface RbAgentEvent {
  agentId: string;
  phone: string;
  eventId: string;
  eventType: string;
  messageId: string | null;
  sendTime: number;
}

export interface RbUserMessage {
  agentId: string;
  phone: string;
  messageId: string;
  payload: JsonRecord;
  at: number;
}

export interface RbToken {
  /** Agents the token acts for beside those of its service account (tokens from the control API). */
  agentIds: string[];
  /** The service account the token was issued to (its partner's agents and brands). */
  email?: string;
  /** OAuth scopes granted (messaging, management). */
  scopes?: string[];
  expiresAt: number;
}

export interface RbmState extends StandInBaseState {
  agents: Map<string, RbAgent>;
  partners: Map<string, RbPartner>;
  brands: Map<string, RbBrand>;
  phones: Map<string, RbPhone>;
  tokens: Map<string, RbToken>;
  agentMessages: RbAgentMessage[];
  agentEvents: RbAgentEvent[];
  userMessages: RbUserMessage[];
  files: Map<string, { name: string; agentId: string; fileUrl: string; thumbnailUrl: string | null }>;
  media: MediaStore;
  baseUrl: string | undefined;
}
