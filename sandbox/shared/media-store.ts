import type { FastifyInstance } from 'fastify';
import { randomAlnum } from './ids.js';

// Files the stand-in itself serves: user-sent attachments, profile pictures, uploads from the service.
// Real platforms hand out CDN URLs; here the URL points back at the stand-in.

export interface StoredMedia {
  id: string;
  fileName: string;
  contentType: string;
  data: Buffer;
  createdAt: number;
}

export interface MediaStore {
  put(data: Buffer, contentType: string, fileName: string): StoredMedia;
  get(id: string): StoredMedia | undefined;
  /** Path (without origin) under which the file is served. */
  pathOf(media: StoredMedia): string;
  clear(): void;
  size(): number;
}

export const MEDIA_PREFIX = '/_media';

export function createMediaStore(): MediaStore {
  const files = new Map<string, StoredMedia>();
  return {
    put(data, contentType, fileName) {
      const media: StoredMedia = { id: randomAlnum(20), fileName, contentType, data, createdAt: Date.now() };
      files.set(media.id, media);
      return media;
    },
    get: (id) => files.get(id),
    pathOf: (media) => `${MEDIA_PREFIX}/${media.id}/${encodeURIComponent(media.fileName)}`,
    clear: () => files.clear(),
    size: () => files.size,
  };
}

export function registerMediaRoutes(app: FastifyInstance, store: MediaStore): void {
  app.get<{ Params: { id: string; name: string } }>(`${MEDIA_PREFIX}/:id/:name`, async (req, reply) => {
    const media = store.get(req.params.id);
    if (!media) return reply.code(404).type('text/plain').send('Not Found');
    return reply.header('content-type', media.contentType).header('content-length', String(media.data.length)).send(media.data);
  });
}

export function guessContentType(fileName: string, fallback = 'application/octet-stream'): string {
  const ext = fileName.toLowerCase().split('.').pop() ?? '';
  const table: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    mp4: 'video/mp4',
    mp3: 'audio/mpeg',
    m4a: 'audio/mp4',
    ogg: 'audio/ogg',
    oga: 'audio/ogg',
    pdf: 'application/pdf',
    txt: 'text/plain',
  };
  return table[ext] ?? fallback;
}
