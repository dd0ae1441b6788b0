import { Type } from '@sinclair/typebox';
import type { StoredFiles } from '../../files/stored-files.js';
import { ApiError } from '../../lib/errors.js';
import type { RoutePlugin } from '../route-group.js';

/** Types a browser may show in the page; everything else is offered as a download. */
const INLINE = /^(image\/(png|jpeg|gif|webp|avif|bmp)|video\/(mp4|webm|ogg)|audio\/(mpeg|mp4|ogg|wav|webm|aac)|application\/pdf|text\/plain)$/;

/**
 * Stored files at `{base_url}/files/<unguessable id>/<name>`, without a token: the id is the
 * capability. Files come from end users, so they are served so that they cannot act as a page
 * of this origin: no sniffing, a sandboxing policy, and a download for anything not plainly media.
 */
export const fileRoutes: RoutePlugin<{ files: StoredFiles }> = async (app, deps) => {
  app.get(
    '/v1/files/:file_id/:name',
    {
      schema: {
        tags: ['Files'],
        operationId: 'getFile',
        summary: 'A stored file (public URL, no token; beyond the specification)',
        description: 'Attachments received from contacts, copied here because platform URLs expire. The unguessable id is the credential.',
        security: [],
        'x-beyond-specification': true,
        params: Type.Object({ file_id: Type.String(), name: Type.String() }),
        'x-response': { 200: Type.Unsafe({ content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } }) },
        'x-response-headers': {
          200: {
            'Content-Disposition': { type: 'string', description: '`inline` for images, video, audio, PDF and plain text; `attachment` for anything else.' },
            'Cache-Control': { type: 'string', description: 'Stored files never change: cached for a year.' },
          },
        },
      },
    },
    async (request, reply) => {
      const { file_id, name } = request.params;
      const row = await deps.files.find(file_id);
      if (!row || row.name !== name) throw ApiError.notFound('File');
      const opened = await deps.files.open(row);
      if (!opened) throw ApiError.notFound('File');
      const disposition = INLINE.test(row.mime_type) ? 'inline' : 'attachment';
      return reply
        .header('Content-Type', row.mime_type)
        .header('Content-Length', String(opened.size))
        .header('Content-Disposition', `${disposition}; filename*=UTF-8''${encodeURIComponent(row.name)}`)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Security-Policy', "default-src 'none'; sandbox")
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .send(opened.stream);
    },
  );
};
