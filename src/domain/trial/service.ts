import type { Store } from '../../store/store.js';
import type { ContactRow } from '../../store/repos/contacts.js';
import { ApiError } from '../../lib/errors.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import type { TrialDriver, TrialUser } from '../../trial/index.js';
import type { ChannelService } from '../channels/service.js';
import { channelView } from '../channels/view.js';

export interface TrialServiceDeps {
  store: Store;
  channels: ChannelService;
  /** The running stand-ins (SANDBOX_URL); null: no trial. */
  sandboxUrl: string | null;
  /** A driver per type whose stand-in can act as its end user. */
  drivers: ReadonlyMap<ChannelType, TrialDriver>;
  /** `{base_url}`: the channel's inbound URLs, which the stand-ins are pointed at, are built from it. */
  baseUrl: string;
}

export interface TrialStatus {
  available: boolean;
  sandbox_url: string | null;
}

/** The longest trial text: the stand-ins take longer ones, but a trial message is typed by hand. */
export const TRIAL_TEXT_MAX = 2000;

/**
 * The local trial: with the platform stand-ins running, their control API acts as an end user
 * writing to a channel, and the message arrives through the platform's real inbound path.
 */
export class TrialService {
  constructor(private readonly deps: TrialServiceDeps) {}

  status(): TrialStatus {
    return { available: this.deps.sandboxUrl !== null, sandbox_url: this.deps.sandboxUrl };
  }

  /** Answers the contact the message came from, once the service has stored it (null when it went to another channel's contact). */
  async send(accountId: number, channelId: number, input: { text: string; contact?: string | undefined }): Promise<{ contact_id: string | null }> {
    const channel = await this.deps.channels.get(accountId, channelId);
    if (this.deps.sandboxUrl === null)
      throw ApiError.of('validation', 'The local trial is off: start the platform stand-ins (`npm run sandbox`) and set SANDBOX_URL.');
    const driver = this.deps.drivers.get(channel.type);
    if (!driver) throw ApiError.of('validation', `Channels of type ${channel.type} have no local trial.`);
    let user: TrialUser | null = null;
    if (input.contact !== undefined) {
      const contactId = /^[1-9][0-9]{0,15}$/.test(input.contact) ? Number(input.contact) : NaN;
      const row = Number.isSafeInteger(contactId) ? await this.deps.store.contacts.find(accountId, channelId, contactId) : undefined;
      if (!row) throw ApiError.notFound('Contact');
      user = { externalId: row.external_id, phoneNumber: row.phone_number };
    }
    const outcome = await driver.send({ channel: channelView(channel, 'get', this.deps.baseUrl), user, text: input.text });
    if (!outcome.ok) throw ApiError.of(outcome.reason === 'unsupported' ? 'validation' : 'platform_error', outcome.message);
    const contact = await this.contactOf(accountId, channelId, outcome.user);
    return { contact_id: contact ? String(contact.id) : null };
  }

  private async contactOf(accountId: number, channelId: number, user: TrialUser): Promise<ContactRow | undefined> {
    const contacts = this.deps.store.contacts;
    if (user.externalId !== null) return contacts.findBy(accountId, channelId, 'external_id', user.externalId);
    if (user.phoneNumber !== null) return contacts.findBy(accountId, channelId, 'phone_number', user.phoneNumber);
    return undefined;
  }
}
