import type { Store } from '../../store/store.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { toE164 } from '../../lib/phone.js';
import { definitionOf } from '../../channel-types/index.js';
import { channelContextOf, type ChannelTesters, type ConnectorRegistry, type PlatformFailure, type Tester } from '../../connectors/connector.js';
import { decodeChannel, type Channel } from '../channels/view.js';
import type { DomainSignals } from '../signals.js';

export interface TestersDeps {
  store: Store;
  clock: Clock;
  box: SecretBox;
  connectors: ConnectorRegistry;
  defaultPhoneRegion?: string;
  /** Told `channelChanged` after the testers list changed. */
  signals: DomainSignals;
}

/** A tester as the API shows it (beyond the specification). */
export interface TesterView {
  phone_number: string;
  invite_state: Tester['state'];
}

const view = (t: Tester): TesterView => ({ phone_number: t.phoneNumber, invite_state: t.state });

/**
 * The testers of a channel whose platform lets it reach only invited numbers for a while (the rbm
 * agent before its launch): invited, listed with their answers and removed on the platform. The
 * answers are kept in the channel's configuration, where the send rules read them.
 */
export class TestersService {
  constructor(private readonly deps: TestersDeps) {}

  private async channel(accountId: number, channelId: number): Promise<{ channel: Channel; testers: ChannelTesters; key: string }> {
    const row = await this.deps.store.channels.find(accountId, channelId);
    if (!row) throw ApiError.notFound('Channel');
    const channel = decodeChannel(row, this.deps.box);
    const testers = this.deps.connectors.role(channel.type, 'testers');
    const key = definitionOf(channel.type).platformState?.testersKey;
    if (!testers || key === undefined) throw ApiError.of('validation', `A ${channel.type} channel has no testers.`);
    return { channel, testers, key };
  }

  private failed(result: PlatformFailure, field: string, value: unknown): ApiError {
    if (result.retryable) return ApiError.of('platform_error', `The platform could not be asked about testers: ${result.message}`);
    return ApiError.invalid(field, value, `The platform refused: ${result.message}`);
  }

  private phone(raw: unknown): string {
    const phone = typeof raw === 'string' ? toE164(raw, this.deps.defaultPhoneRegion) : null;
    if (phone === null) throw ApiError.invalid('phone_number', raw ?? null, `Property 'phone_number' is not a phone number.`);
    return phone;
  }

  /** Keeps the answers read from the platform (all of them, or one tester's) with the channel. */
  private async keep(channel: Channel, key: string, update: (testers: Record<string, string>) => void): Promise<void> {
    const row = await this.deps.store.channels.find(channel.accountId, Number(channel.id));
    if (!row) return;
    const config = JSON.parse(row.config) as Record<string, unknown>;
    const testers = { ...((config[key] as Record<string, string> | undefined) ?? {}) };
    update(testers);
    config[key] = testers;
    await this.deps.store.channels.update(channel.accountId, Number(channel.id), { config: JSON.stringify(config), updated_at: this.deps.clock.now() });
    this.deps.signals.emit('channelChanged', { channelId: channel.id });
  }

  async list(accountId: number, channelId: number): Promise<TesterView[]> {
    const { channel, testers, key } = await this.channel(accountId, channelId);
    const listed = await testers.list(channelContextOf(channel));
    if (!listed.ok) throw this.failed(listed, 'channel_id', channel.id);
    await this.keep(channel, key, (kept) => {
      for (const phone of Object.keys(kept)) delete kept[phone];
      for (const t of listed.value) kept[t.phoneNumber] = t.state;
    });
    return listed.value.map(view);
  }

  async invite(accountId: number, channelId: number, rawPhone: unknown): Promise<TesterView> {
    const phone = this.phone(rawPhone);
    const { channel, testers, key } = await this.channel(accountId, channelId);
    const invited = await testers.invite(channelContextOf(channel), phone);
    if (!invited.ok) throw this.failed(invited, 'phone_number', phone);
    await this.keep(channel, key, (kept) => {
      kept[invited.value.phoneNumber] = invited.value.state;
    });
    return view(invited.value);
  }

  async remove(accountId: number, channelId: number, rawPhone: unknown): Promise<void> {
    const phone = this.phone(rawPhone);
    const { channel, testers, key } = await this.channel(accountId, channelId);
    const removed = await testers.remove(channelContextOf(channel), phone);
    if (!removed.ok) throw this.failed(removed, 'phone_number', phone);
    await this.keep(channel, key, (kept) => {
      delete kept[phone];
    });
  }
}
