import type { ChannelContext, Recipient } from './channel.js';
import type { SendReceipt } from './outbound.js';
import type { PlatformResult } from './result.js';

/** What narrows a lookup: when the message was made (ms), so the platform's list is read back only to then, and whom it was for. */
export interface SentLookupHint {
  since?: number;
  /** The message's recipient: a platform whose list filters by recipient reads only theirs. */
  recipient?: Recipient;
}

/**
 * Finds a message the platform already accepted under the service's reference (our message id,
 * given with every send), so a send retried after an unknown outcome (a timeout, a worker that
 * died after the platform answered) does not send the message twice. Answers the platform's ids
 * of the message, or null when the platform has no message with that reference. A lookup that
 * could not tell (the platform down, more messages than the lookup reads) is a failure, never
 * null: the caller then must not send again on a guess.
 */
export interface SentLookup {
  findSent(channel: ChannelContext, reference: string, hint?: SentLookupHint): Promise<PlatformResult<SendReceipt | null>>;
}
