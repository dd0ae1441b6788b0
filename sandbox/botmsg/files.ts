import { fetchMedia } from '../shared/fetch-media.js';
import type { UploadedFile } from '../shared/form-body.js';
import { guessContentType } from '../shared/media-store.js';
import { randomAlnum } from '../shared/ids.js';
import type { JsonRecord } from '../shared/values.js';
import type { BmContext } from './context.js';
import { BotError, badRequest } from './errors.js';
import type { BmBot, BmFile } from './state.js';

// Files: uploads (multipart), URLs the platform downloads, and file_ids of files it already has.

export type FileKind = 'photo' | 'document' | 'video' | 'audio' | 'voice';

const UPLOAD_LIMIT: Record<FileKind, number> = {
  photo: 10 * 1024 * 1024,
  document: 50 * 1024 * 1024,
  video: 50 * 1024 * 1024,
  audio: 50 * 1024 * 1024,
  voice: 50 * 1024 * 1024,
};
const URL_LIMIT: Record<FileKind, number> = {
  photo: 5 * 1024 * 1024,
  document: 20 * 1024 * 1024,
  video: 20 * 1024 * 1024,
  audio: 20 * 1024 * 1024,
  voice: 20 * 1024 * 1024,
};
const DIRS: Record<FileKind, string> = { photo: 'photos', document: 'documents', video: 'videos', audio: 'music', voice: 'voice' };
export const DOWNLOAD_LIMIT = 20 * 1024 * 1024;

let fileCounter = 0;

function pngSize(data: Buffer): { width: number; height: number } | null {
  if (data.length < 24 || data.readUInt32BE(0) !== 0x89504e47) return null;
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

function extOf(fileName: string, mime: string): string {
  const fromName = fileName.includes('.') ? fileName.split('.').pop() : undefined;
  if (fromName) return fromName.toLowerCase();
  const table: Record<string, string> = {
    'image/png': 'png',
    'image/jpeg': 'jpg',
    'video/mp4': 'mp4',
    'audio/mpeg': 'mp3',
    'audio/ogg': 'oga',
    'application/pdf': 'pdf',
  };
  return table[mime] ?? 'bin';
}

/** Stores bytes as a new platform file. */
export function storeFile(ctx: BmContext, bot: BmBot, kind: FileKind, data: Buffer, mimeType: string, fileName: string): BmFile {
  const media = ctx.state.media.put(data, mimeType, fileName);
  const dims = pngSize(data);
  fileCounter += 1;
  const file: BmFile = {
    fileId: `${kind === 'photo' ? 'AgAC' : 'BQAC'}${randomAlnum(60)}`,
    fileUniqueId: `AQAD${randomAlnum(12)}`,
    botId: bot.id,
    kind,
    mediaId: media.id,
    fileSize: data.length,
    filePath: `${DIRS[kind]}/file_${fileCounter}.${extOf(fileName, mimeType)}`,
    mimeType,
    fileName,
    width: dims?.width ?? (kind === 'photo' || kind === 'video' ? 640 : null),
    height: dims?.height ?? (kind === 'photo' || kind === 'video' ? 480 : null),
  };
  ctx.state.files.set(file.fileId, file);
  return file;
}

/** Resolves a send method's file parameter: multipart upload, attach://name, HTTP URL or file_id. */
export async function resolveInputFile(ctx: BmContext, bot: BmBot, kind: FileKind, param: string, value: unknown, files: UploadedFile[]): Promise<BmFile> {
  const direct = files.find((f) => f.field === param);
  const attachName = typeof value === 'string' && value.startsWith('attach://') ? value.slice('attach://'.length) : undefined;
  const upload = direct ?? (attachName !== undefined ? files.find((f) => f.field === attachName) : undefined);
  if (upload) {
    if (upload.data.length > UPLOAD_LIMIT[kind]) throw new BotError(413, 'Request Entity Too Large');
    if (upload.data.length === 0) throw badRequest('file must be non-empty');
    const mime = upload.contentType && upload.contentType !== 'application/octet-stream' ? upload.contentType : guessContentType(upload.fileName);
    return storeFile(ctx, bot, kind, upload.data, mime, upload.fileName);
  }
  if (typeof value !== 'string' || value === '') throw badRequest(`there is no ${kind} in the request`);
  if (/^https?:\/\//i.test(value)) {
    const name = decodeURIComponent(new URL(value).pathname.split('/').pop() || kind);
    if (!ctx.options.fetchUrls) return storeFile(ctx, bot, kind, Buffer.alloc(0), guessContentType(name), name);
    const fetched = await fetchMedia(value, URL_LIMIT[kind], ctx.options.urlFetchTimeoutMs);
    if (!fetched.ok) throw badRequest('failed to get HTTP URL content');
    if (kind === 'photo' && !fetched.contentType.startsWith('image/')) throw badRequest('wrong type of the web page content');
    return storeFile(ctx, bot, kind, fetched.data, fetched.contentType, name);
  }
  const existing = ctx.state.files.get(value);
  if (!existing || existing.botId !== bot.id) throw badRequest('wrong file identifier/HTTP URL specified');
  if ((existing.kind === 'photo') !== (kind === 'photo')) throw badRequest('type of file mismatch');
  return existing;
}

export function fileView(file: BmFile): JsonRecord {
  return { file_id: file.fileId, file_unique_id: file.fileUniqueId, file_size: file.fileSize };
}

/** PhotoSize list: a thumbnail-sized entry and the original (both served from the same bytes). */
export function photoSizes(ctx: BmContext, file: BmFile): JsonRecord[] {
  const width = file.width ?? 640;
  const height = file.height ?? 480;
  const scale = Math.min(1, 90 / Math.max(width, height));
  const thumbId = `${file.fileId}_s`;
  let thumb = ctx.state.files.get(thumbId);
  if (!thumb) {
    thumb = {
      ...file,
      fileId: thumbId,
      fileUniqueId: `${file.fileUniqueId}s`,
      width: Math.max(1, Math.round(width * scale)),
      height: Math.max(1, Math.round(height * scale)),
    };
    ctx.state.files.set(thumb.fileId, thumb);
  }
  return [
    { ...fileView(thumb), width: thumb.width, height: thumb.height },
    { ...fileView(file), width, height },
  ];
}

export function mediaObject(ctx: BmContext, file: BmFile, params: Record<string, unknown>): JsonRecord {
  switch (file.kind) {
    case 'photo':
      return { photo: photoSizes(ctx, file) };
    case 'document':
      return { document: { file_name: file.fileName, mime_type: file.mimeType, ...fileView(file) } };
    case 'video':
      return {
        video: {
          duration: Number(params.duration ?? 0),
          width: file.width,
          height: file.height,
          file_name: file.fileName,
          mime_type: file.mimeType,
          ...fileView(file),
        },
      };
    case 'audio': {
      const audio: JsonRecord = { duration: Number(params.duration ?? 0), file_name: file.fileName, mime_type: file.mimeType, ...fileView(file) };
      if (typeof params.title === 'string') audio.title = params.title;
      if (typeof params.performer === 'string') audio.performer = params.performer;
      return { audio };
    }
    case 'voice':
      return { voice: { duration: Number(params.duration ?? 0), mime_type: file.mimeType, ...fileView(file) } };
    default:
      return {};
  }
}
