/**
 * The local trial: a platform's stand-in (`npm run sandbox`), asked through its control API, acts
 * as an end user writing to a channel; the message then reaches the service through the
 * platform's real inbound path. One driver per channel type whose stand-in can do it.
 */

/** The end user the stand-in acts as, as the service knows contacts. */
export interface TrialUser {
  /** The platform's id of the user (page-scoped id, chat id), when it has one. */
  externalId: string | null;
  /** E.164, for platforms that know users by number. */
  phoneNumber: string | null;
}

export interface TrialInput {
  /** The channel as the API shows it (its type's object carries what the stand-in needs: page id, bot token, number). */
  channel: Record<string, unknown>;
  /** The contact to write as; null: the channel's trial user, made on the stand-in when missing. */
  user: TrialUser | null;
  text: string;
}

export type TrialOutcome =
  | { ok: true; user: TrialUser }
  /** unsupported: this channel cannot be tried (e.g. no number to write to); failed: the stand-in or the service refused or did not answer. */
  | { ok: false; reason: 'unsupported' | 'failed'; message: string };

export interface TrialDriver {
  send(input: TrialInput): Promise<TrialOutcome>;
}

/** A failure of one control call, turned into a TrialOutcome by the driver's caller. */
export class TrialFailure extends Error {
  constructor(
    readonly reason: 'unsupported' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

/** Runs a driver's steps, turning a TrialFailure into its outcome. */
export async function attempt(steps: () => Promise<TrialUser>): Promise<TrialOutcome> {
  try {
    return { ok: true, user: await steps() };
  } catch (error) {
    if (error instanceof TrialFailure) return { ok: false, reason: error.reason, message: error.message };
    throw error;
  }
}
