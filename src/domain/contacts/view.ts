import type { ChannelType } from '../../schemas/channel-types.js';
import type { ContactView } from '../../schemas/content.js';
import type { ContactRow } from '../../store/repos/contacts.js';

/** Which optional fields each channel type shows (messaging-api.md, Contact). */
const PHONE_ALWAYS: readonly ChannelType[] = ['mobile', 'rbm', 'appmsg_business_messages'];

/** The name a contact has when nobody gave one: the phone number (mobile, rbm), else the address, else the id. */
export function defaultName(row: Pick<ContactRow, 'id' | 'name' | 'phone_number' | 'email'>): string {
  return row.name ?? row.phone_number ?? row.email ?? String(row.id);
}

export function contactView(row: ContactRow, type: ChannelType): ContactView {
  const view: ContactView = { id: String(row.id), name: defaultName(row) };
  // socialnet_chat shows the phone number only once a message was sent by it; so does every type that has one.
  if (row.phone_number && (PHONE_ALWAYS.includes(type) || type === 'socialnet_chat')) view.phone_number = row.phone_number;
  if (type === 'socialnet_chat') {
    if (row.user_ref) view.user_ref = row.user_ref;
    const profile = JSON.parse(row.profile) as Record<string, unknown>;
    if (typeof profile.gender === 'string') view.gender = profile.gender;
    if (typeof profile.time_zone === 'string' || typeof profile.time_zone === 'number') view.time_zone = profile.time_zone;
    if (typeof profile.photo_url === 'string') view.photo_url = profile.photo_url;
  }
  if (type === 'email' && row.email) view.email = row.email;
  return view;
}
