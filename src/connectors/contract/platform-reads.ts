import type { ChannelContext, Recipient } from './channel.js';
import type { PlatformFile } from './inbound-events.js';
import type { PlatformResult } from './result.js';

/** A downloaded file. */
export interface FetchedMedia {
  bytes: Uint8Array;
  mimeType: string;
  name: string;
}

/** Downloads a file the platform holds (received attachments, profile pictures), through the address guard. */
export interface MediaFetcher {
  fetchMedia(channel: ChannelContext, media: PlatformFile): Promise<PlatformResult<FetchedMedia>>;
}

/** What the platform knows about a user (Get Contact). */
export interface PlatformProfile {
  name?: string;
  gender?: string;
  timeZone?: string | number;
  photo?: PlatformFile;
  /** Further fields worth keeping (first_name, locale, ...). */
  extra?: Record<string, unknown>;
}

/** Reads the user's profile from the platform. */
export interface ProfileReader {
  fetchProfile(channel: ChannelContext, recipient: Recipient): Promise<PlatformResult<PlatformProfile>>;
}
