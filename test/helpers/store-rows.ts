// Rows the store suites need before the rows they test: an account with one channel and one
// contact, written straight through the store (no API, no service).
import type { Store } from '../../src/store/store.js';
import type { ChannelRow } from '../../src/store/repos/channels.js';
import type { ContactRow } from '../../src/store/repos/contacts.js';

export interface SeededContact {
  account: number;
  channel: number;
  contact: number;
}

/**
 * Writes account `ids.account` (unless it exists already) and its channel `ids.channel` of `type`,
 * with `columns` over the defaults (no webhook).
 */
export async function seedChannel(store: Store, ids: { account: number; channel: number }, type: string, columns: Partial<ChannelRow> = {}): Promise<void> {
  if (!(await store.accounts.find(ids.account))) {
    await store.accounts.insert({ id: ids.account, name: 'a', plan: 'free', hourly_limit: null, concurrency_limit: null, created_at: 1 });
  }
  await store.channels.insert({
    id: ids.channel,
    account_id: ids.account,
    type,
    name: 'c',
    mode: 'production',
    config: '{}',
    secrets: null,
    webhook_id: null,
    webhook_url: null,
    webhook_secret: null,
    webhook_ssl_verification: 1,
    settings: '{}',
    created_at: 1,
    updated_at: 1,
    ...columns,
  });
}

/** A contact row: no address, name or profile unless `columns` gives them. */
export function contactRow(columns: Pick<ContactRow, 'id' | 'account_id' | 'channel_id'> & Partial<ContactRow>): ContactRow {
  return {
    external_id: null,
    phone_number: null,
    email: null,
    user_ref: null,
    name: null,
    profile: '{}',
    created_at: 1,
    updated_at: 1,
    ...columns,
  };
}

/** Writes account `ids.account`, its channel of `type` and one contact with the given address. */
export async function seedChannelContact(
  store: Store,
  ids: SeededContact,
  options: { type: string; externalId?: string | null; phoneNumber?: string | null },
): Promise<void> {
  await seedChannel(store, ids, options.type);
  await store.contacts.insert(
    contactRow({
      id: ids.contact,
      account_id: ids.account,
      channel_id: ids.channel,
      external_id: options.externalId ?? null,
      phone_number: options.phoneNumber ?? null,
    }),
  );
}
