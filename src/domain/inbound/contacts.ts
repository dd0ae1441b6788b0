import type { Store } from '../../store/store.js';
import type { ContactKey, ContactRow } from '../../store/repos/contacts.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { toE164 } from '../../lib/phone.js';
import type { InboundUser } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';

export interface InboundContactsDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  defaultPhoneRegion: string | undefined;
  /** Told when a contact's addressing changed (the send path caches contacts by address). */
  onChanged(contactId: number): void;
}

/** The contacts column of an e-mail address, named as a property (the word is also a channel type's name). */
const EMAIL_COLUMN = Object.keys({ email: null } satisfies Partial<Record<ContactKey, null>>)[0] as ContactKey;

/** An e-mail address as contacts keep it (Send Message keeps them trimmed and in lower case). */
function emailOf(raw: string | undefined): string | null {
  const text = raw?.trim().toLowerCase() ?? '';
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) ? text : null;
}

/**
 * The contact an inbound event is about: found by the platform's id, else by the checkbox
 * reference; made on first contact ("a contact is created when the first message from the user is
 * received"). Concurrent first events of one user make one contact (insert-or-ignore on the
 * per-channel unique keys, then read back).
 */
export class InboundContacts {
  constructor(private readonly deps: InboundContactsDeps) {}

  phoneOf(raw: string | undefined): string | null {
    if (!raw) return null;
    const text = raw.trim();
    return toE164(/^\d+$/.test(text) ? `+${text}` : text, this.deps.defaultPhoneRegion);
  }

  private find(channel: Channel, user: InboundUser): Promise<ContactRow | undefined> {
    const { store } = this.deps;
    const channelId = Number(channel.id);
    if (user.externalId) return store.contacts.findBy(channel.accountId, channelId, 'external_id', user.externalId);
    if (user.userRef) return store.contacts.findBy(channel.accountId, channelId, 'user_ref', user.userRef);
    // Platforms that know the user by phone number only (SMS): the number is the contact's address.
    const phone = this.phoneOf(user.phoneNumber);
    if (phone) return store.contacts.findBy(channel.accountId, channelId, 'phone_number', phone);
    // Platforms that know the user by e-mail address only (inbound mail).
    const email = emailOf(user.email);
    if (email) return store.contacts.findBy(channel.accountId, channelId, EMAIL_COLUMN, email);
    return Promise.resolve(undefined);
  }

  /** The known contact, or undefined (receipts for someone the service never met are dropped). */
  async existing(channel: Channel, user: InboundUser): Promise<ContactRow | undefined> {
    const found = await this.find(channel, user);
    if (found || !user.externalId || !user.userRef) return found;
    return this.deps.store.contacts.findBy(channel.accountId, Number(channel.id), 'user_ref', user.userRef);
  }

  /** The contact, made when new; a user_ref contact learns its platform id when an event carries both. */
  async resolve(channel: Channel, user: InboundUser): Promise<ContactRow | undefined> {
    const phoneOnly = !user.externalId && !user.userRef ? this.phoneOf(user.phoneNumber) : null;
    const emailOnly = !user.externalId && !user.userRef && !phoneOnly ? emailOf(user.email) : null;
    if (!user.externalId && !user.userRef && !phoneOnly && !emailOnly) return undefined;
    const { store } = this.deps;
    const channelId = Number(channel.id);
    let found = await this.find(channel, user);
    if (!found && user.externalId && user.userRef) {
      const byRef = await store.contacts.findBy(channel.accountId, channelId, 'user_ref', user.userRef);
      if (byRef && !byRef.external_id) {
        await this.update(byRef, { external_id: user.externalId });
        return { ...byRef, external_id: user.externalId };
      }
    }
    if (found) {
      if (found.name === null && user.name) {
        await this.update(found, { name: user.name });
        found = { ...found, name: user.name };
      }
      return found;
    }
    return this.create(channel, user, phoneOnly ? { phone_number: phoneOnly } : emailOnly ? { email: emailOnly } : {});
  }

  async create(channel: Channel, user: InboundUser, extra: Partial<ContactRow>): Promise<ContactRow | undefined> {
    const { store, ids, clock } = this.deps;
    const now = clock.now();
    const row: ContactRow = {
      id: ids.nextNumber(),
      account_id: channel.accountId,
      channel_id: Number(channel.id),
      external_id: user.externalId ?? null,
      phone_number: null,
      email: null,
      user_ref: user.userRef ?? null,
      name: user.name ?? null,
      profile: JSON.stringify(user.profile ?? {}),
      created_at: now,
      updated_at: now,
      ...extra,
    };
    // Another delivery of the same first event may make it at the same moment: one wins.
    await store.batchWrite({ ensure: { contacts: [row] }, insert: {} });
    return this.find(channel, user);
  }

  async update(row: ContactRow, changes: Partial<ContactRow>): Promise<void> {
    await this.deps.store.contacts.update(row.account_id, row.channel_id, row.id, { ...changes, updated_at: this.deps.clock.now() });
    this.deps.onChanged(row.id);
  }

  /**
   * A message request sent by phone number was accepted: the contact made by the send (found by
   * its number) learns the user's platform id. When the user was already a contact by id, that
   * contact gets the number instead; when both exist, the one addressed by number is reported.
   */
  async acceptPhone(channel: Channel, user: InboundUser): Promise<ContactRow | undefined> {
    const { store } = this.deps;
    const channelId = Number(channel.id);
    const phone = this.phoneOf(user.phoneNumber);
    const byPhone = phone ? await store.contacts.findBy(channel.accountId, channelId, 'phone_number', phone) : undefined;
    const byId = user.externalId ? await store.contacts.findBy(channel.accountId, channelId, 'external_id', user.externalId) : undefined;
    if (byPhone && !byId && user.externalId) {
      await this.update(byPhone, { external_id: user.externalId });
      return { ...byPhone, external_id: user.externalId };
    }
    if (byId && !byPhone && phone) {
      await this.update(byId, { phone_number: phone });
      return { ...byId, phone_number: phone };
    }
    if (byPhone ?? byId) return byPhone ?? byId;
    return this.create(channel, user, phone ? { phone_number: phone } : {});
  }
}
