// Builds the administration app (web/admin) with Vite into dist/web/admin, and tells whether the
// build is older than its sources. The build goes to a folder of its own first and replaces the
// old one only when complete, so a server serving the app never sees it half written.
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root: the nearest folder above this file with package.json (tests run this file bundled elsewhere in the project). */
function projectRoot() {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

const root = projectRoot();
export const ADMIN_SOURCES = join(root, 'web', 'admin');
export const ADMIN_OUT = join(root, 'dist', 'web', 'admin');

function newestIn(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules' || name === 'dist') continue;
    newest = Math.max(newest, newestIn(join(path, name)));
  }
  return newest;
}

/** True when dist/web/admin is missing or older than a file of web/admin (or package-lock.json). */
export function adminAppStale() {
  const built = join(ADMIN_OUT, 'index.html');
  if (!existsSync(built)) return true;
  const sources = Math.max(newestIn(ADMIN_SOURCES), statSync(join(root, 'package-lock.json')).mtimeMs);
  return sources > statSync(built).mtimeMs;
}

export async function buildAdminApp({ logLevel = 'warn' } = {}) {
  const { build } = await import('vite');
  const staging = `${ADMIN_OUT}.build-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    await build({ configFile: join(ADMIN_SOURCES, 'vite.config.ts'), logLevel, build: { outDir: staging, emptyOutDir: true } });
    rmSync(ADMIN_OUT, { recursive: true, force: true });
    renameSync(staging, ADMIN_OUT);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return ADMIN_OUT;
}
