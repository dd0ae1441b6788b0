import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { errorBody } from '../error-body.js';
import type { RoutePlugin } from '../route-group.js';

/**
 * The browser code of the web chat, public (no token): `/widget.js` (one script tag puts the chat
 * on a page) and `/chat-client.js` (the client library as an ES module). `npm run build` writes
 * them to dist/web; a server running from source builds them in memory with esbuild instead, so
 * development and tests always serve the current sources.
 */
interface Asset {
  body: Buffer;
  etag: string;
}

const ASSETS = {
  'widget.js': { entry: 'web/widget/index.ts', format: 'iife' },
  'chat-client.js': { entry: 'web/widget/client.ts', format: 'esm' },
} as const;
type AssetName = keyof typeof ASSETS;

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

const runningFromSource = fileURLToPath(import.meta.url).endsWith('.ts');

async function buildInMemory(root: string, name: AssetName): Promise<Buffer> {
  // esbuild is a development dependency: loaded only when there is no built file to serve.
  const esbuild = await import('esbuild');
  const spec = ASSETS[name];
  const result = await esbuild.build({
    entryPoints: [join(root, spec.entry)],
    bundle: true,
    minify: true,
    write: false,
    platform: 'browser',
    target: ['es2020'],
    format: spec.format,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`esbuild produced no output for ${name}`);
  return Buffer.from(file.contents);
}

/** Per process: every app built in it (tests build many) serves the same bundles. */
const cache = new Map<AssetName, Promise<Asset>>();

export const widgetRoutes: RoutePlugin = async (app) => {
  const root = projectRoot();

  const load = (name: AssetName): Promise<Asset> => {
    let asset = cache.get(name);
    if (!asset) {
      asset = (async () => {
        const built = join(root, 'dist', 'web', name);
        const body = !runningFromSource && existsSync(built) ? readFileSync(built) : await buildInMemory(root, name);
        return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      })();
      asset.catch(() => cache.delete(name));
      cache.set(name, asset);
    }
    return asset;
  };

  for (const name of Object.keys(ASSETS) as AssetName[]) {
    app.get(`/${name}`, { schema: { hide: true } }, async (request, reply) => {
      let asset: Asset;
      try {
        asset = await load(name);
      } catch (error) {
        request.log.error({ reqId: request.id, err: error }, `${name} is not built`);
        return reply.code(503).send(errorBody(503, [{ message: `${name} is not available: run npm run build.` }]));
      }
      void reply
        .header('Content-Type', 'application/javascript; charset=utf-8')
        .header('Cache-Control', 'public, max-age=300')
        .header('ETag', asset.etag)
        .header('Access-Control-Allow-Origin', '*')
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('X-Content-Type-Options', 'nosniff');
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.send(asset.body);
    });
  }
};
