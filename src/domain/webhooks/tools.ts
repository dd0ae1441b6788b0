import type { Store } from '../../store/store.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import type { Outbox } from '../events/outbox.js';

/** What the administration app's webhook tab does beyond the delivery log: a test event and redelivering every failed delivery. */
export class WebhookTools {
  constructor(private readonly deps: { store: Store; clock: Clock; outbox: Outbox }) {}

  private async hookedChannel(accountId: number, channelId: number): Promise<{ webhookId: number; type: string; name: string }> {
    const channel = await this.deps.store.channels.find(accountId, channelId);
    if (!channel) throw ApiError.notFound('Channel');
    if (channel.webhook_id === null) throw ApiError.of('validation', 'The channel has no webhook to deliver to.');
    return { webhookId: channel.webhook_id, type: channel.type, name: channel.name };
  }

  /**
   * A `webhook_test` event (beyond the specification) through the outbox, so it is signed,
   * retried and logged like any event. Its data names the channel as every other event does
   * (`channel: {id, type, name}`), so a receiver finds the channel's secret the same way. Answers
   * its delivery's id.
   */
  async sendTest(accountId: number, channelId: number): Promise<{ delivery_id: string }> {
    const { webhookId, type, name } = await this.hookedChannel(accountId, channelId);
    const channel = { id: String(channelId), accountId, webhook: { id: String(webhookId) } };
    const data = { channel: { id: String(channelId), type, name } };
    const { deliveryId } = await this.deps.store.transaction((tx) => this.deps.outbox.append(tx, { type: 'webhook_test', channel, contactId: null, data }));
    this.deps.outbox.wake();
    return { delivery_id: deliveryId as string };
  }

  /** Every failed delivery of the channel, sent again at once to its current webhook as a new cycle of tries. */
  async redeliverFailed(accountId: number, channelId: number): Promise<{ redelivered: number }> {
    const { webhookId } = await this.hookedChannel(accountId, channelId);
    const redelivered = await this.deps.store.deliveries.redeliverFailed(accountId, channelId, webhookId, this.deps.clock.now());
    if (redelivered > 0) this.deps.outbox.wake();
    return { redelivered };
  }
}
