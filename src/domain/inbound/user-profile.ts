import type { ContactRow } from '../../store/repos/contacts.js';
import type { StoredFiles } from '../../files/stored-files.js';
import type { Logger } from '../../lib/logger.js';
import { channelContextOf, type ConnectorRegistry, type InboundUser } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import type { InboundContacts } from './contacts.js';

export interface UserProfileDeps {
  connectors: ConnectorRegistry;
  files: StoredFiles;
  contacts: InboundContacts;
  logger?: Pick<Logger, 'warn'>;
}

/**
 * A platform that sends the user's whole profile with an event (a subscription) keeps the contact
 * up to date: its name and profile fields are taken, and its picture is copied into the file
 * store (`photo_url`) when it is another one than the contact has. A picture the platform cannot
 * hand over is logged and left out; the event is still reported.
 */
export async function refreshContact(deps: UserProfileDeps, channel: Channel, contact: ContactRow, user: InboundUser): Promise<ContactRow> {
  if (!user.refresh && !user.photo) return contact;
  const before = JSON.parse(contact.profile) as Record<string, unknown>;
  const profile: Record<string, unknown> = { ...before, ...(user.refresh ? user.profile : {}) };
  const media = deps.connectors.role(channel.type, 'media');
  if (user.photo && media && before.photo_source !== user.photo.ref) {
    const picture = await media.fetchMedia(channelContextOf(channel), user.photo);
    if (picture.ok) {
      const stored = await deps.files.save({
        accountId: contact.account_id,
        channelId: contact.channel_id,
        contactId: contact.id,
        name: picture.value.name,
        mimeType: picture.value.mimeType,
        bytes: picture.value.bytes,
      });
      profile.photo_url = stored.url;
      profile.photo_source = user.photo.ref;
    } else {
      deps.logger?.warn({ channel: channel.id, contact: contact.id, code: picture.code }, `contact picture not copied: ${picture.message}`);
    }
  }
  const changes: Partial<ContactRow> = {};
  if (JSON.stringify(profile) !== contact.profile) changes.profile = JSON.stringify(profile);
  if (user.refresh && user.name && user.name !== contact.name) changes.name = user.name;
  if (Object.keys(changes).length === 0) return contact;
  await deps.contacts.update(contact, changes);
  return { ...contact, ...changes };
}
