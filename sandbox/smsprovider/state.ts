import type { StandInBaseState } from '../shared/standin.js';
import type { JsonRecord } from '../shared/values.js';
import type { JwtAlgorithm } from './signing.js';

// One provider account: access keys, the webhook signing key, numbers with their inbound URLs,
// messages with per-recipient status.

export type RecipientStatus = 'scheduled' | 'sent' | 'buffered' | 'delivered' | 'expired' | 'delivery_failed';

export interface SpRecipient {
  recipient: number;
  status: RecipientStatus;
  statusDatetime: number;
  statusReason: string | null;
  statusErrorCode: number | null;
  messagePartCount: number;
  price: { amount: number; currency: string };
}

export interface SpMessage {
  id: string;
  direction: 'mt';
  type: string;
  originator: string;
  body: string;
  reference: string | null;
  reportUrl: string | null;
  validity: number | null;
  gateway: number;
  typeDetails: JsonRecord;
  datacoding: string;
  mclass: number;
  scheduledDatetime: string | null;
  createdAt: number;
  recipients: SpRecipient[];
  /** Sent with a test access key: accepted, never delivered, no reports. */
  test: boolean;
  /** Parameters as the service sent them. */
  params: JsonRecord;
  deleted: boolean;
}

export interface SpNumber {
  number: string;
  receiveUrl: string | null;
}

export interface SpInbound {
  id: string;
  originator: string;
  recipient: string;
  body: string;
  at: number;
}

export interface SmsproviderState extends StandInBaseState {
  accessKeys: Map<string, 'live' | 'test'>;
  signingKey: string;
  /** The JWT's algorithm (HS256 unless set). */
  jwtAlgorithm: JwtAlgorithm;
  /**
   * Whether status reports carry the signature (default true). A production integration of the
   * provider checks the JWT on inbound messages only and keeps unsigned status fixtures: reports
   * may come unsigned.
   */
  signStatusReports: boolean;
  /** Default status report URL (used when a message has no reportUrl). */
  statusReportUrl: string | null;
  /** null = unlimited. */
  balance: number | null;
  numbers: Map<string, SpNumber>;
  messages: SpMessage[];
  inbound: SpInbound[];
  /** Recipients (digits) that replied STOP. */
  optedOut: Set<string>;
  baseUrl: string | undefined;
}
