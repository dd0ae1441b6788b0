import { fetchMedia } from '../shared/fetch-media.js';
import type { UploadedFile } from '../shared/form-body.js';
import { guessContentType } from '../shared/media-store.js';
import { randomDigits } from '../shared/ids.js';
import { optBoolean, optString, type JsonRecord } from '../shared/values.js';
import type { SnContext } from './context.js';
import { paramError } from './errors.js';
import type { SnMediaInfo, SnPage } from './state.js';

// Media of outgoing attachments: uploaded as `filedata`, fetched from `payload.url`, or referenced by
// `payload.attachment_id` (saved earlier with is_reusable).

const MAX_BYTES = 25 * 1024 * 1024;
const MAX_IMAGE_URL_BYTES = 8 * 1024 * 1024;

export interface MaterializedAttachment {
  media: SnMediaInfo | null;
  attachmentId: string | null;
}

export async function materializeAttachment(
  ctx: SnContext,
  page: SnPage,
  attachment: JsonRecord,
  upload: UploadedFile | undefined,
  origin: string,
): Promise<MaterializedAttachment> {
  const type = optString(attachment.type) ?? 'file';
  const payload = (attachment.payload ?? {}) as JsonRecord;
  if (type === 'template') return { media: null, attachmentId: null };
  const { state } = ctx;

  let media: SnMediaInfo | null = null;
  const attachmentIdIn = optString(payload.attachment_id);
  if (upload) {
    if (upload.data.length > MAX_BYTES) throw paramError('Attachment size exceeds allowable limit', 2018109);
    const stored = state.media.put(upload.data, upload.contentType || guessContentType(upload.fileName), upload.fileName);
    media = { url: origin + state.media.pathOf(stored), sourceUrl: null, contentType: stored.contentType, size: stored.data.length };
  } else if (attachmentIdIn !== undefined && attachmentIdIn !== '') {
    const saved = state.attachments.get(attachmentIdIn);
    if (!saved || saved.pageId !== page.id) throw paramError('Invalid attachment_id or the attachment does not belong to this page');
    const stored = saved.mediaId === null ? undefined : state.media.get(saved.mediaId);
    media = stored
      ? { url: origin + state.media.pathOf(stored), sourceUrl: saved.url, contentType: stored.contentType, size: stored.data.length }
      : { url: saved.url ?? '', sourceUrl: saved.url, contentType: 'application/octet-stream', size: 0 };
    return { media, attachmentId: null };
  } else {
    const url = optString(payload.url) ?? '';
    if (ctx.options.fetchAttachmentUrls) {
      const limit = type === 'image' ? MAX_IMAGE_URL_BYTES : MAX_BYTES;
      const fetched = await fetchMedia(url, limit, ctx.options.attachmentFetchTimeoutMs);
      if (!fetched.ok) {
        if (fetched.reason === 'too_large') throw paramError('Attachment size exceeds allowable limit', 2018109);
        throw paramError('Failed to fetch the file from the url', 2018008);
      }
      if (type === 'audio' && !fetched.contentType.startsWith('audio/')) {
        throw paramError('Failed to fetch the file from the url: audio must be served with an audio/* content type', 2018008);
      }
      const name = decodeURIComponent(new URL(url).pathname.split('/').pop() || 'file');
      const stored = state.media.put(fetched.data, fetched.contentType, name);
      media = { url: origin + state.media.pathOf(stored), sourceUrl: url, contentType: stored.contentType, size: stored.data.length };
    } else {
      media = { url, sourceUrl: url, contentType: guessContentType(url), size: 0 };
    }
  }

  let attachmentId: string | null = null;
  if (optBoolean(payload.is_reusable) === true) {
    attachmentId = randomDigits(16);
    const mediaId = media.url.includes('/_media/') ? (media.url.split('/_media/')[1]?.split('/')[0] ?? null) : null;
    state.attachments.set(attachmentId, {
      id: attachmentId,
      pageId: page.id,
      type,
      url: media.sourceUrl,
      mediaId,
      createdAt: state.clock.now(),
    });
  }
  return { media, attachmentId };
}
