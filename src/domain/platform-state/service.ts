import type { Store } from '../../store/store.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { ApiError } from '../../lib/errors.js';
import { definitionOf, type PlatformStateSpec } from '../../channel-types/index.js';
import { channelContextOf, type ConnectorRegistry, type PlatformChannelState, type PlatformFailure } from '../../connectors/connector.js';
import { newJob } from '../../queue/jobs-task.js';
import type { Outbox } from '../events/outbox.js';
import { decodeChannel, type Channel } from '../channels/view.js';
import { platformStateJobKind, PLATFORM_STATE_MAX_ATTEMPTS } from './job.js';
import type { DomainSignals } from '../signals.js';

export interface PlatformStateDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  box: SecretBox;
  outbox: Outbox;
  connectors: ConnectorRegistry;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Told `channelChanged` so the per-process caches drop a channel whose state moved. */
  signals: DomainSignals;
}

/** Configuration key of the state the platform was last asked for (so it is asked once per client write). */
const ASKED_KEY = 'platform_asked';

/** What one look at the platform made of the channel: whether the platform has answered what it was asked. */
export type StepOutcome = { ok: true; settled: boolean } | PlatformFailure;

/**
 * A channel state the platform moves (the rbm agent's life cycle), followed by the service:
 * - a client write of a requested state (`create_requested`, `launch_requested`) queues a check
 *   job, which asks the platform once (`channelStateRequests`) and then reads its state
 *   (`channelState`) with back-off until the platform answered;
 * - Get Channel with `?refresh=true` takes the same step at once;
 * - every change of the state is stored with the platform's reason and announced to the channel's
 *   webhook (`channel_state_changed`, beyond the specification), in one transaction.
 */
export class PlatformStateService {
  private readonly steps = new Map<string, Promise<StepOutcome | undefined>>();

  constructor(private readonly deps: PlatformStateDeps) {}

  private specOf(channel: Channel): PlatformStateSpec | undefined {
    return definitionOf(channel.type).platformState;
  }

  /** After a create or update: a newly requested state is asked of the platform by a job. */
  async saved(channel: Channel, previous: Channel | null): Promise<void> {
    const spec = this.specOf(channel);
    if (!spec) return;
    const state = channel.config[spec.key];
    if (typeof state !== 'string' || !spec.requested.includes(state)) return;
    if (previous !== null && previous.config[spec.key] === state) return;
    await this.enqueue(channel);
  }

  async enqueue(channel: Channel): Promise<void> {
    const now = this.deps.clock.now();
    const job = newJob(
      platformStateJobKind,
      {},
      { id: this.deps.ids.nextNumber(), accountId: channel.accountId, channelId: Number(channel.id), runAt: now, maxAttempts: PLATFORM_STATE_MAX_ATTEMPTS },
      now,
    );
    await this.deps.store.jobQueue.enqueue([job]);
  }

  /**
   * One step for a channel, read fresh from the store (undefined when it is gone). Steps of one
   * channel in this process run one after the other, so a refresh and the background check never
   * ask the platform twice for one request.
   */
  stepFor(accountId: number, channelId: number): Promise<StepOutcome | undefined> {
    const key = `${accountId}:${channelId}`;
    const run = (this.steps.get(key) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        const row = await this.deps.store.channels.find(accountId, channelId);
        return row ? this.step(decodeChannel(row, this.deps.box)) : undefined;
      });
    this.steps.set(key, run);
    void run
      .finally(() => {
        if (this.steps.get(key) === run) this.steps.delete(key);
      })
      .catch(() => undefined);
    return run;
  }

  /**
   * A state a connector's ordinary call revealed (a send that found the page disconnected): kept
   * and announced like a state read from the platform, in turn with the channel's other steps.
   */
  observed(channelId: string, state: PlatformChannelState): Promise<void> {
    const key = `observed:${channelId}`;
    const run = (this.steps.get(key) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        const row = await this.deps.store.channels.findAnyAccount(Number(channelId));
        if (!row) return undefined;
        const channel = decodeChannel(row, this.deps.box);
        const spec = this.specOf(channel);
        if (!spec) return undefined;
        await this.store(channel, spec, state, undefined);
        return { ok: true as const, settled: true };
      });
    this.steps.set(key, run);
    void run
      .finally(() => {
        if (this.steps.get(key) === run) this.steps.delete(key);
      })
      .catch(() => undefined);
    return run.then(() => undefined);
  }

  /** Get Channel with `?refresh=true`: one step now; the platform down answers 502. */
  async refresh(accountId: number, channelId: number): Promise<void> {
    const outcome = await this.stepFor(accountId, channelId);
    if (outcome === undefined) throw ApiError.notFound('Channel');
    if (!outcome.ok && outcome.retryable) throw ApiError.of('platform_error', `The platform could not be asked for the channel's state: ${outcome.message}`);
  }

  /**
   * One look: a requested state not yet asked is asked of the platform, else the platform's state
   * is read; a change is stored and announced. A permanent refusal is kept as the reason.
   */
  async step(channel: Channel): Promise<StepOutcome> {
    const spec = this.specOf(channel);
    if (!spec) return { ok: true, settled: true };
    const reader = this.deps.connectors.role(channel.type, 'channelState');
    const requester = this.deps.connectors.role(channel.type, 'channelStateRequests');
    if (!reader) return { ok: true, settled: true };
    const current = String(channel.config[spec.key] ?? '');
    const ask = spec.requested.includes(current) && channel.config[ASKED_KEY] !== current && requester !== undefined;
    const context = channelContextOf(channel);
    const result = ask ? await requester.requestState(context, current) : await reader.readState(context);
    if (!result.ok) {
      if (!result.retryable)
        await this.store(channel, spec, { state: current, platformState: '', reach: 'nobody', reason: result.message }, ask ? current : undefined);
      return result;
    }
    const next = await this.store(channel, spec, result.value, ask ? current : undefined);
    return { ok: true, settled: !spec.requested.includes(next) };
  }

  /** Stores what the platform said; answers the state now kept. */
  private async store(channel: Channel, spec: PlatformStateSpec, platform: PlatformChannelState, asked: string | undefined): Promise<string> {
    const { store, clock, outbox } = this.deps;
    const previous = String(channel.config[spec.key] ?? '');
    const config: Record<string, unknown> = { ...channel.config, ...platform.config, [spec.key]: platform.state };
    if (platform.reason === undefined) delete config[spec.reasonKey];
    else config[spec.reasonKey] = platform.reason;
    if (asked !== undefined) config[ASKED_KEY] = asked;
    // Leaving the requested state ends the request: a later write asks again.
    if (!spec.requested.includes(platform.state)) delete config[ASKED_KEY];
    if (JSON.stringify(config) === JSON.stringify(channel.config)) return platform.state;
    const now = clock.now();
    let wake = false;
    await store.transaction(async (tx) => {
      await tx.channels.update(channel.accountId, Number(channel.id), { config: JSON.stringify(config), updated_at: now });
      if (platform.state !== previous) {
        const data: Record<string, unknown> = {
          channel: { id: channel.id, type: channel.type, name: channel.name },
          [spec.key]: platform.state,
          [`previous_${spec.key}`]: previous,
          reason: platform.reason ?? null,
        };
        const appended = await outbox.append(tx, { type: 'channel_state_changed', channel, contactId: null, data });
        wake = appended.deliveryId !== null;
      }
    });
    if (wake) outbox.wake();
    this.deps.signals.emit('channelChanged', { channelId: channel.id });
    if (platform.state !== previous) this.deps.logger.info({ channel: channel.id, from: previous, to: platform.state }, 'the platform moved the channel state');
    return platform.state;
  }
}
