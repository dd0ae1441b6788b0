import type { ContactRow } from '../../store/repos/contacts.js';
import type { Channel } from '../channels/view.js';

/** `channel` and `contact` as every event's data shows them (contract.md §7). */
export function channelRef(channel: Channel): { id: string; type: string; name: string } {
  return { id: channel.id, type: channel.type, name: channel.name };
}

export function contactRef(row: ContactRow): Record<string, string> {
  const ref: Record<string, string> = { id: String(row.id) };
  if (row.phone_number) ref.phone_number = row.phone_number;
  if (row.user_ref) ref.user_ref = row.user_ref;
  if (row.email) ref.email = row.email;
  return ref;
}
