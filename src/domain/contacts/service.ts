import type { Store } from '../../store/store.js';
import type { ContactKey, ContactPage, ContactRow } from '../../store/repos/contacts.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import type { ContactView } from '../../schemas/content.js';
import type { Channel } from '../channels/view.js';
import type { ChannelCache } from '../messages/channel-cache.js';
import type { ContactAddress } from '../messages/addressing.js';
import { ContactCache } from './cache.js';
import { ContactLookups } from './lookups.js';
import { contactView } from './view.js';

/** Removes stored file bytes (the file store); rows go with the contact. */
export type RemoveStoredFiles = (storageKeys: readonly string[]) => Promise<void>;

export interface ContactServiceDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  channels: ChannelCache;
  /** How long a contact found by its address is reused without reading it again. */
  cacheMs: number;
  removeFiles?: RemoveStoredFiles;
  /** Reads the platform's profile of a contact on its first Get Contact (socialnet_chat). */
  profiles?: { ensure(channel: Channel, row: ContactRow): Promise<ContactRow> };
}

/** A send's contact: found, or made now (its row then goes into the send's write unit). */
export interface ResolvedContact {
  row: ContactRow;
  /** Not committed yet: the write unit must insert it (insert-or-ignore). */
  isNew: boolean;
  cacheKey: string;
}

/** The columns a send may name a new contact by: every lookup key but the ids. */
type AddressColumns = Pick<ContactRow, Exclude<ContactKey, 'id' | 'external_id'>>;

/** The stored columns an address fills in a new contact (exactly one of them). */
function columnsOf(address: Exclude<ContactAddress, { form: 'id' }>): AddressColumns {
  return {
    phone_number: address.form === 'phone_number' ? address.phoneNumber : null,
    email: address.form === 'email_address' ? address.email : null,
    user_ref: address.form === 'user_ref' ? address.userRef : null,
  };
}

/** The column a send's contact is looked up by, and its value. */
function keyOf(address: ContactAddress): [ContactKey, string | number] {
  if (address.form === 'id') return ['id', address.id ?? 0];
  const [column, value] = Object.entries(columnsOf(address)).find(([, v]) => v !== null) as [keyof AddressColumns, string];
  return [column, value];
}

export class ContactService {
  readonly cache: ContactCache;
  /** A send's lookup of a contact not in the cache, read together with the others of its turn. */
  private readonly lookups: ContactLookups;

  constructor(private readonly deps: ContactServiceDeps) {
    this.cache = new ContactCache(deps.cacheMs, () => deps.clock.now());
    this.lookups = new ContactLookups((accountId, channelId, key, values) => deps.store.contacts.findManyBy(accountId, channelId, key, values));
  }

  /** Newest first, unless the page asks for the most recently active first or a search (ContactPage). */
  async list(accountId: number, channelId: number, page: ContactPage): Promise<{ contacts: ContactView[]; total: number }> {
    const channel = await this.deps.channels.get(accountId, channelId);
    const { rows, total } = await this.deps.store.contacts.list(accountId, channelId, page);
    return { contacts: rows.map((r) => contactView(r, channel.type)), total };
  }

  async get(accountId: number, channelId: number, contactId: number): Promise<ContactView> {
    const channel = await this.deps.channels.get(accountId, channelId);
    const row = await this.deps.store.contacts.find(accountId, channelId, contactId);
    if (!row) throw ApiError.notFound('Contact');
    return contactView(this.deps.profiles ? await this.deps.profiles.ensure(channel, row) : row, channel.type);
  }

  /**
   * Deletes the contact with its conversation: messages, events and their pending deliveries,
   * file rows (foreign keys cascade) and, after the commit, the stored file bytes.
   */
  async delete(accountId: number, channelId: number, contactId: number): Promise<void> {
    await this.deps.channels.get(accountId, channelId);
    const storageKeys = await this.deps.store.transaction(async (tx) => {
      const keys = await tx.files.storageKeysForContact(accountId, contactId);
      const deleted = await tx.contacts.delete(accountId, channelId, contactId);
      if (!deleted) throw ApiError.notFound('Contact');
      return keys;
    });
    this.cache.forgetContact(contactId);
    if (storageKeys.length > 0 && this.deps.removeFiles) await this.deps.removeFiles(storageKeys);
  }

  /** Finds the contact a send names, or makes a new one (a new phone number or e-mail address). */
  async resolveForSend(channel: Channel, address: ContactAddress): Promise<ResolvedContact> {
    const channelId = Number(channel.id);
    const [key, value] = keyOf(address);
    const cacheKey = ContactCache.key(channelId, key, value);
    const hit = this.cache.get(cacheKey);
    if (hit) return { row: hit.row, isNew: !hit.committed, cacheKey };
    if (address.form === 'id' && address.id === null) throw this.unknownId(address.raw, channel);
    const found = await this.lookups.find(channel.accountId, channelId, key, value);
    if (found) {
      this.cache.set(cacheKey, found, true);
      return { row: found, isNew: false, cacheKey };
    }
    if (address.form === 'id') throw this.unknownId(address.raw, channel);
    // Another send may have started making this contact while we looked.
    const again = this.cache.get(cacheKey);
    if (again) return { row: again.row, isNew: !again.committed, cacheKey };
    const row = this.newContact(channel, address);
    this.cache.set(cacheKey, row, false);
    return { row, isNew: true, cacheKey };
  }

  /** The send's unit committed: the contact exists. */
  confirm(resolved: ResolvedContact): void {
    if (resolved.isNew) this.cache.set(resolved.cacheKey, resolved.row, true);
  }

  /** The send found its contact gone (deleted elsewhere, or made by another instance): look again next time. */
  forget(resolved: ResolvedContact): void {
    this.cache.delete(resolved.cacheKey);
  }

  private unknownId(raw: string, channel: Channel): ApiError {
    return ApiError.invalid('contact.id', raw, `Contact '${raw}' does not exist in channel '${channel.id}'.`);
  }

  private newContact(channel: Channel, address: Exclude<ContactAddress, { form: 'id' }>): ContactRow {
    const now = this.deps.clock.now();
    const profile: Record<string, string> = {};
    let name: string | null = null;
    if (address.form === 'phone_number') {
      if (address.firstName) profile.first_name = address.firstName;
      if (address.lastName) profile.last_name = address.lastName;
      const full = [address.firstName, address.lastName].filter(Boolean).join(' ');
      if (full.length > 0) name = full;
    }
    if (address.form === 'email_address' && address.name) name = address.name;
    return {
      id: this.deps.ids.nextNumber(),
      account_id: channel.accountId,
      channel_id: Number(channel.id),
      external_id: null,
      ...columnsOf(address),
      name,
      profile: JSON.stringify(profile),
      created_at: now,
      updated_at: now,
    };
  }
}
