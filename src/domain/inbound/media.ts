import { isAttachedFile, isStagedFile, type ChannelContext, type FetchedMedia, type InboundContent, type MediaFetcher } from '../../connectors/connector.js';
import type { StoredFiles } from '../../files/stored-files.js';
import type { Content } from '../../schemas/content.js';

/** A platform could not hand over a file for now: the call is answered with an error so the platform calls again. */
export class MediaUnavailable extends Error {}

/**
 * Received attachments are copied into the service's file store, because platform URLs expire
 * (messaging-api.md, point 7); the message carries the stored URL. A file the platform refuses
 * for good (gone, too large) keeps the platform's URL; one it cannot give now fails the call. A
 * file that came in the call's body (inbound mail) is stored as it is; one the route staged on disk
 * (a streamed form) is streamed into the store, never read whole into memory.
 */
export async function neutralContent(
  content: InboundContent,
  quickReplyPayload: string | undefined,
  rehost: { media: MediaFetcher | null; channel: ChannelContext; files: StoredFiles; accountId: number; channelId: number; contactId: number },
  onPermanentFailure: (message: string) => void,
): Promise<Content> {
  switch (content.type) {
    case 'text': {
      const out: Record<string, unknown> = { type: 'text', payload: content.text };
      const payload = content.quickReplyPayload ?? quickReplyPayload;
      if (payload !== undefined) out.quick_reply = { payload };
      return out as unknown as Content;
    }
    case 'location':
      return { type: 'location', payload: { latitude: content.latitude, longitude: content.longitude } };
    default: {
      const { media, channel, files } = rehost;
      const file = content.media;
      const owner = { accountId: rehost.accountId, channelId: rehost.channelId, contactId: rehost.contactId };
      if (isStagedFile(file)) {
        const stored = await files.saveStream({ ...owner, name: file.name, mimeType: file.mimeType, stream: file.open() });
        return { type: content.type, payload: { url: stored.url } };
      }
      let bytes: FetchedMedia;
      if (isAttachedFile(file)) bytes = file;
      else {
        if (!media) return { type: content.type, payload: { url: file.ref } };
        const fetched = await media.fetchMedia(channel, file);
        if (!fetched.ok) {
          if (fetched.retryable) throw new MediaUnavailable(fetched.message);
          onPermanentFailure(fetched.message);
          return { type: content.type, payload: { url: /^https?:\/\//.test(file.ref) ? file.ref : '' } };
        }
        bytes = fetched.value;
      }
      const stored = await files.save({
        ...owner,
        name: bytes.name,
        mimeType: bytes.mimeType,
        bytes: bytes.bytes,
      });
      return { type: content.type, payload: { url: stored.url } };
    }
  }
}
