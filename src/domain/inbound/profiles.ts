import type { Store } from '../../store/store.js';
import type { ContactRow } from '../../store/repos/contacts.js';
import type { StoredFiles } from '../../files/stored-files.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { channelContextOf, type ConnectorRegistry } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import type { DomainSignals } from '../signals.js';

export interface ProfileLoaderDeps {
  store: Store;
  clock: Clock;
  connectors: ConnectorRegistry;
  files: StoredFiles;
  /** Told `contactChanged` after a contact's profile was saved. */
  signals: DomainSignals;
  logger?: Pick<Logger, 'warn'>;
}

/** Keys of the profile JSON that say when a failed read is tried again, and how many failed. */
const RETRY_AT = 'profile_retry_at';
const FAILURES = 'profile_failures';
/** The wait after the first failed read; it doubles with each failure up to the last. */
export const PROFILE_RETRY_FIRST_MS = 60_000;
export const PROFILE_RETRY_MAX_MS = 24 * 60 * 60 * 1000;

export function profileRetryDelay(failures: number): number {
  return Math.min(PROFILE_RETRY_MAX_MS, PROFILE_RETRY_FIRST_MS * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}

/**
 * The first Get Contact of a contact the platform knows reads its profile (name, gender, time
 * zone, picture) from the platform and copies the picture into the file store, so that request
 * is slow and the later ones are not (messaging-api.md, Contact). A read that fails (the platform
 * is down, or refuses: a permission, a user who has not written yet) is never taken as done: the
 * contact stays as it is, and a Get Contact after a back-off (one minute, doubling with each
 * failure, at most a day) asks again; Get Contacts before that do not ask the platform.
 */
export class ProfileLoader {
  constructor(private readonly deps: ProfileLoaderDeps) {}

  async ensure(channel: Channel, row: ContactRow): Promise<ContactRow> {
    const profiles = this.deps.connectors.role(channel.type, 'profiles');
    if (!profiles || !row.external_id) return row;
    const profile = JSON.parse(row.profile) as Record<string, unknown>;
    if (profile.profile_read_at !== undefined) return row;
    const retryAt = typeof profile[RETRY_AT] === 'number' ? profile[RETRY_AT] : null;
    if (retryAt !== null && this.deps.clock.now() < retryAt) return row;
    const ctx = channelContextOf(channel);
    const got = await profiles.fetchProfile(ctx, {
      id: String(row.id),
      externalId: row.external_id,
      phoneNumber: row.phone_number,
      userRef: row.user_ref,
      email: row.email,
      name: row.name,
    });
    const now = this.deps.clock.now();
    if (!got.ok) {
      const failures = (typeof profile[FAILURES] === 'number' ? profile[FAILURES] : 0) + 1;
      const wait = profileRetryDelay(failures);
      this.deps.logger?.warn(
        { channel: channel.id, contact: row.id, code: got.code, failures, retry_in_ms: wait },
        `contact profile not read, asked again later: ${got.message}`,
      );
      return this.save(row, { ...profile, [FAILURES]: failures, [RETRY_AT]: now + wait }, null);
    }
    const { [FAILURES]: _failures, [RETRY_AT]: _retryAt, ...kept } = profile;
    const next: Record<string, unknown> = { ...kept, ...got.value.extra, profile_read_at: now };
    if (got.value.gender !== undefined) next.gender = got.value.gender;
    if (got.value.timeZone !== undefined) next.time_zone = got.value.timeZone;
    const media = this.deps.connectors.role(channel.type, 'media');
    if (got.value.photo && media) {
      const picture = await media.fetchMedia(ctx, got.value.photo);
      if (picture.ok) {
        const stored = await this.deps.files.save({
          accountId: row.account_id,
          channelId: row.channel_id,
          contactId: row.id,
          name: picture.value.name,
          mimeType: picture.value.mimeType,
          bytes: picture.value.bytes,
        });
        next.photo_url = stored.url;
      } else if (picture.retryable) {
        // The picture is fetched again with the next Get Contact.
        return this.save(row, { ...next, profile_read_at: undefined }, got.value.name ?? null);
      }
    }
    return this.save(row, next, got.value.name ?? null);
  }

  private async save(row: ContactRow, profile: Record<string, unknown>, name: string | null): Promise<ContactRow> {
    const changes: Partial<ContactRow> = { profile: JSON.stringify(profile), updated_at: this.deps.clock.now() };
    // A name the client gave (with a send by phone number) is kept.
    if (name && row.name === null) changes.name = name;
    await this.deps.store.contacts.update(row.account_id, row.channel_id, row.id, changes);
    this.deps.signals.emit('contactChanged', { contactId: row.id });
    return { ...row, ...changes } as ContactRow;
  }
}
