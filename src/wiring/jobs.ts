import type { Base } from './base.js';
import { systemClock } from '../lib/clock.js';
import { plainLogger } from '../lib/logger.js';
import type { ConnectorRegistry } from '../connectors/connector.js';
import type { Metrics } from '../operations/metrics.js';
import { QueueRunner } from '../queue/runner.js';
import { JobKinds, JobsTask } from '../queue/jobs-task.js';
import { sendJobKind } from '../domain/sending/send-job.js';
import { timeToLiveJob } from '../domain/sending/time-to-live.js';
import { platformStateJob } from '../domain/platform-state/job.js';
import type { PlatformStateService } from '../domain/platform-state/service.js';
import type { ChannelCache } from '../domain/messages/channel-cache.js';
import type { RunningQueues } from './running-queues.js';
import type { ContactService } from '../domain/contacts/service.js';
import { failoverJob } from '../domain/failover/job.js';
import { failoverReports } from '../domain/failover/reports.js';

/**
 * Jobs running at once in one process (mostly platform calls of send jobs, each waiting on the
 * network), and how long a claim holds a job (longer than any attempt).
 */
const JOB_CONCURRENCY = 32;
const JOB_LEASE_MS = 5 * 60_000;

/**
 * The job kinds of the jobs runner: the send jobs of the asynchronous types, platform states,
 * delivery deadlines, failover chains. The outbox is told to show each report on a message to the
 * failover chains (their jobs run on it).
 */
export function jobKindsOf(
  { store, clock, outbox, logger, ids, signals, config }: Base,
  deps: { connectors: ConnectorRegistry; channelCache: ChannelCache; platformState: PlatformStateService; contacts: ContactService; metrics: Metrics },
): JobKinds {
  outbox.watchAppends(failoverReports(clock));
  const failover = failoverJob({
    store,
    ids,
    clock,
    outbox,
    connectors: deps.connectors,
    channels: deps.channelCache,
    contacts: deps.contacts,
    defaultPhoneRegion: config.defaultPhoneRegion,
    signals,
    logger: plainLogger(logger.child({ worker: 'failover' })),
  });
  const send = sendJobKind({
    store,
    clock,
    outbox,
    connectors: deps.connectors,
    channels: deps.channelCache,
    logger: plainLogger(logger.child({ worker: 'send' })),
    onOutcome: (type, outcome, latencyMs, retryAfterMs) => deps.metrics.sendJob(type, outcome, latencyMs, retryAfterMs),
  });
  return new JobKinds()
    .register(send)
    .register(platformStateJob(deps.platformState))
    .register(timeToLiveJob({ store, outbox, channels: deps.channelCache }))
    .register(failover);
}

/**
 * Starts the jobs runner and the NLP training runner (its own few slots, one account's training at
 * a time, claimed only when it can start), each woken by the `jobsDue` signal. Answers their stop.
 */
export function startJobRunners(base: Base, kinds: { jobs: JobKinds; training: JobKinds }, running: RunningQueues): () => Promise<void> {
  const { config, store, ids, clock, logger, signals } = base;
  const runnerOptions = (worker: string) => ({
    instanceId: () => store.instanceId,
    nextId: () => ids.nextNumber(),
    pollMs: config.workerPollMs,
    logger: logger.child({ worker }),
  });
  const jobsTask = new JobsTask({
    queue: store.jobQueue,
    kinds: kinds.jobs,
    clock,
    wallClock: systemClock,
    concurrency: JOB_CONCURRENCY,
    leaseMs: JOB_LEASE_MS,
    logger: logger.child({ worker: 'jobs' }),
  });
  const trainingTask = new JobsTask({
    queue: store.jobQueue,
    kinds: kinds.training,
    clock,
    wallClock: systemClock,
    concurrency: config.nlp.trainingConcurrency,
    capacity: config.nlp.trainingConcurrency,
    leaseMs: Math.max(JOB_LEASE_MS, config.nlp.trainingTimeoutMs + JOB_LEASE_MS),
    logger: logger.child({ worker: 'nlp-training' }),
    perAccount: true,
    freesOwnLeases: false,
  });
  const jobs = new QueueRunner(jobsTask, runnerOptions('jobs'));
  const training = new QueueRunner(trainingTask, runnerOptions('nlp-training'));
  running.jobs = jobs as QueueRunner<unknown, unknown, unknown>;
  running.training = training as QueueRunner<unknown, unknown, unknown>;
  const stopWaking = signals.on('jobsDue', function wakeJobRunners() {
    jobs.wake();
    training.wake();
  });
  jobs.start();
  training.start();
  return async () => {
    stopWaking();
    await training.stop();
    await jobs.stop();
  };
}
