import type { ChannelType } from '../../schemas/channel-types.js';
import type { ContactView } from '../../schemas/content.js';
import type { ContactRow } from '../../store/repos/contacts.js';
import { definitionOf } from '../../channel-types/index.js';

/** The name a contact has when nobody gave one: the phone number (mobile, rbm), else the address, else the id. */
export function defaultName(row: ContactRow): string {
  return row.name ?? row.phone_number ?? row.email ?? String(row.id);
}

/** Which optional fields a contact shows is its channel type's (messaging-api.md, Contact). */
export function contactView(row: ContactRow, type: ChannelType): ContactView {
  const spec = definitionOf(type).contactView;
  const view: ContactView = { id: String(row.id), name: defaultName(row) };
  if (spec.phoneNumber && row.phone_number) view.phone_number = row.phone_number;
  if (spec.extra) Object.assign(view, spec.extra(row));
  if (spec.email && row.email) view.email = row.email;
  return view;
}
