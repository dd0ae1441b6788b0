import type { Store } from '../../store/store.js';
import type { ContactRow } from '../../store/repos/contacts.js';
import type { WriteUnit } from '../../store/write-unit.js';
import { MissingReference, UniqueViolation } from '../../store/errors.js';
import type { StoredFiles } from '../../files/stored-files.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Logger } from '../../lib/logger.js';
import type { Content } from '../../schemas/content.js';
import type { EventType } from '../../schemas/events.js';
import type { NlpField } from '../../schemas/nlp.js';
import type { ConnectorRegistry } from '../../connectors/connector.js';
import { eventInserts, type Outbox } from '../events/outbox.js';
import type { Channel } from '../channels/view.js';
import type { InboundContacts } from './contacts.js';
import type { SharedNumberReplies } from './shared-number.js';
import type { DomainSignals } from '../signals.js';

export interface InboundServiceDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  box: SecretBox;
  outbox: Outbox;
  connectors: ConnectorRegistry;
  files: StoredFiles;
  defaultPhoneRegion: string | undefined;
  /** `{base_url}`, the service's public address ending in /v1: the full URL of an inbound call is built from it. */
  publicUrl: string;
  /** Told `contactChanged` when an inbound event changed a contact's addressing (the send path caches contacts). */
  signals: DomainSignals;
  /** NLP on received text: the result for the message's `nlp`, or undefined (never throws, bounded by its time budget). */
  classify?(channelId: number, content: Content): Promise<NlpField | undefined>;
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** Told of each platform call's verdict by channel type (metrics; `unknown` when no channel or type was found). */
  onVerdict?(type: string, verdict: InboundVerdict): void;
}

/** What became of a platform's call: taken, refused by its check, naming nothing, to be retried, or failed here. */
export type InboundVerdict = 'accepted' | 'refused' | 'not_found' | 'unavailable' | 'failed';

/**
 * An inbound call's correlation (lib/correlation.ts): `requestId` (the call's own request id) goes
 * with the events the call makes; a report on a message the service sent carries that message's
 * id instead, noted in `messageCorrelationId` for the call's log line, so the report and its
 * webhook delivery are found with the send that made the message.
 */
export interface InboundTrace {
  requestId: string | null;
  messageCorrelationId?: string | null;
}

export const NO_TRACE: InboundTrace = { requestId: null };

/** What each event kind's handler is given: the service's dependencies and the parts it shares. */
export interface InboundContext {
  readonly deps: InboundServiceDeps;
  readonly contacts: InboundContacts;
  readonly sharedNumber: SharedNumberReplies;
  /** Messages being stored now, by channel, direction and platform id: a repeated callback waits for the first, then finds the message stored. */
  readonly storing: Map<string, Promise<void>>;
}

/** Writes one unit (rows with their event) and wakes the webhook workers. False when the unit was a duplicate or its contact is gone. */
export async function writeUnit(ctx: InboundContext, unit: WriteUnit, trace: InboundTrace): Promise<boolean> {
  if (trace.requestId !== null) for (const event of unit.insert.events ?? []) event.correlation_id = trace.requestId;
  try {
    await ctx.deps.store.batchWrite(unit);
  } catch (error) {
    if (error instanceof UniqueViolation || error instanceof MissingReference) return false;
    throw error;
  }
  if (unit.insert.deliveries && unit.insert.deliveries.length > 0) ctx.deps.outbox.wake();
  return true;
}

/**
 * The unit of an event that stores no message. With the platform's key of the event, the
 * unique (channel, inbound_key) index makes a repeated call a duplicate (dropped by `writeUnit`),
 * on every instance alike.
 */
export function eventUnit(
  ctx: InboundContext,
  channel: Channel,
  contact: ContactRow,
  type: EventType,
  data: Record<string, unknown>,
  eventKey: string | undefined,
): WriteUnit {
  const rows = ctx.deps.outbox.build({ type, channel, contactId: contact.id, data });
  if (rows.event && eventKey !== undefined) rows.event.inbound_key = `${type}:${eventKey}`;
  return { insert: eventInserts(rows) };
}
