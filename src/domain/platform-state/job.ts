import type { JobKind, JobResult } from '../../queue/jobs-task.js';
import type { ClaimedJob } from '../../store/job-queue.js';

/**
 * The background check of a channel state the platform moves: the job runs a step (ask, then
 * read) and, while the platform has not answered, runs again after a wait that doubles from
 * 2 seconds up to an hour. A channel deleted meanwhile ends it.
 */
export const PLATFORM_STATE_JOB_KIND = 'platform_state';
/** Checks before the job gives up (with hourly checks at the end, several months). */
export const PLATFORM_STATE_MAX_ATTEMPTS = 5000;

const FIRST_WAIT_MS = 2_000;
const LONGEST_WAIT_MS = 3_600_000;

export function platformStateRetryDelayMs(attempts: number): number {
  return Math.min(FIRST_WAIT_MS * 2 ** Math.max(0, attempts - 1), LONGEST_WAIT_MS);
}

type Input = Record<string, never>;

/** What the job needs from the service: one step for the job's channel (undefined when the channel is gone). */
export interface PlatformStateStepper {
  stepFor(accountId: number, channelId: number): Promise<{ ok: true; settled: boolean } | { ok: false; retryable: boolean; message: string } | undefined>;
}

/** The kind's row format, without a handler (Send Message-like writers need only this). */
export const platformStateJobKind: JobKind<Input> = {
  kind: PLATFORM_STATE_JOB_KIND,
  encode: () => '{}',
  decode: () => ({}),
  handle: () => Promise.resolve({ ok: false, retryable: false, error: 'The platform-state job runs through platformStateJob().' }),
};

/** The job kind with its handler, registered by the runtime. */
export function platformStateJob(stepper: PlatformStateStepper): JobKind<Input> {
  return {
    ...platformStateJobKind,
    retryDelayMs: platformStateRetryDelayMs,
    async handle(_input: Input, job: ClaimedJob): Promise<JobResult> {
      const outcome = await stepper.stepFor(job.accountId, job.channelId);
      if (outcome === undefined) return { ok: true };
      if (!outcome.ok) return { ok: false, retryable: outcome.retryable, error: outcome.message };
      return outcome.settled ? { ok: true } : { ok: false, retryable: true, error: 'The platform has not answered yet.' };
    },
  };
}
