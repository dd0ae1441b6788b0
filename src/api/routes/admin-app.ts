import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../lib/errors.js';
import { setAdminSecurityHeaders } from '../admin-guard.js';
import type { RoutePlugin } from '../route-group.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

export const NOT_BUILT = 'The administration app is not built: run `npm run build`.';

/** dist/web/admin under the project's root (where package.json is), whether running from source or from dist. */
export function defaultAdminAppDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'web', 'admin');
    dir = dirname(dir);
  }
  return join(process.cwd(), 'dist', 'web', 'admin');
}

interface CachedFile {
  body: Buffer;
  etag: string;
  mtimeMs: number;
  size: number;
}

/**
 * The administration app's built files (`npm run build` writes them to dist/web/admin), public:
 * the app signs in through /admin/api. `/admin/assets/...` are content-hashed and cached for a
 * year; any other `/admin/...` path that is not a file is the app's index.html (client-side
 * routes), never cached without revalidation. `/` and `/admin` lead to `/admin/`. Every answer
 * carries the contract's security headers; without a build, 503 says how to make one.
 */
export const adminAppRoutes: RoutePlugin<{ dir: string }> = async (app, deps) => {
  const root = resolve(deps.dir);
  const cache = new Map<string, CachedFile>();

  app.addHook('onRequest', (_request, reply, done) => {
    setAdminSecurityHeaders(reply);
    done();
  });

  const load = async (path: string): Promise<CachedFile | null> => {
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return null;
    const hit = cache.get(path);
    if (hit && hit.mtimeMs === info.mtimeMs && hit.size === info.size) return hit;
    const body = await readFile(path);
    const file = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, mtimeMs: info.mtimeMs, size: info.size };
    cache.set(path, file);
    return file;
  };

  const send = (reply: FastifyReply, file: CachedFile, path: string, cacheControl: string, ifNoneMatch: string | undefined) => {
    void reply.header('Cache-Control', cacheControl).header('ETag', file.etag);
    if (ifNoneMatch === file.etag) return reply.code(304).send();
    return reply.type(TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream').send(file.body);
  };

  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/admin/', 302));
  app.get('/admin', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/admin/', 302));

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/admin/*',
    schema: { hide: true },
    // A catch-all: in the route table it would make unmatched /admin/api paths answer 405.
    config: { notInRouteTable: true },
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        void reply.header('Allow', 'GET, HEAD');
        throw ApiError.of('method_not_allowed', `Method ${request.method} is not allowed for the administration app's pages.`);
      }
      const index = join(root, 'index.html');
      if (!existsSync(index)) throw ApiError.of('unavailable', NOT_BUILT);
      const rest = (request.params as { '*': string })['*'] ?? '';
      const ifNoneMatch = request.headers['if-none-match'];
      if (rest.length > 0 && !rest.includes('\0')) {
        const path = resolve(root, rest);
        const inside = path.startsWith(root + sep);
        const file = inside ? await load(path) : null;
        if (file) return send(reply, file, path, rest.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache', ifNoneMatch);
        // A missing asset is missing, not a page: index.html in its place would be run as a script.
        if (rest.startsWith('assets/') || !inside) throw ApiError.notFound('File');
      }
      const page = await load(index);
      if (!page) throw ApiError.of('unavailable', NOT_BUILT);
      return send(reply, page, index, 'no-cache', ifNoneMatch);
    },
  });
};
