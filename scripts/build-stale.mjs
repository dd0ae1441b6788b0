// What scripts/build.mjs runs: the parts of the build (the server, the browser code), each built
// only when one of its sources is newer than its last complete build. A part's build leaves a
// stamp (dist/.build/<part>) dated when that build began, written only when it succeeded: a failed
// build, or a file edited while it ran, makes the next run build again.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root: the nearest folder above this file with package.json (tests run this file bundled elsewhere in the project). */
function projectRoot() {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

const ROOT = projectRoot();

function run(root, command, args) {
  const done = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (done.status !== 0) throw new Error(`${[command, ...args].join(' ')} failed (${done.signal ?? `exit code ${done.status}`})`);
}

/** The parts of the build: what each is made from, what it makes, and how. */
export const PARTS = [
  {
    name: 'server',
    what: 'the server (tsc -p tsconfig.build.json into dist/)',
    sources: ['src', 'sandbox', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    outputs: ['dist/src/cli.js'],
    build: (root) => run(root, process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json']),
  },
  {
    name: 'web',
    what: 'the web chat and the administration app (scripts/build-web.mjs into dist/web/)',
    // The web chat's client library shares the chat schemas with the server.
    sources: ['web', 'src/schemas', 'scripts/build-web.mjs', 'scripts/build-admin-app.mjs', 'package-lock.json'],
    outputs: ['dist/web/widget.js', 'dist/web/chat-client.js', 'dist/web/admin/index.html'],
    build: (root) => run(root, process.execPath, [join(root, 'scripts', 'build-web.mjs')]),
  },
];

/** The newest modification time of a file or of anything in a folder (0 when it does not exist). */
export function newestMtime(path) {
  let info;
  try {
    info = statSync(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules' || name === 'dist') continue;
    newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

const stampOf = (root, part) => join(root, 'dist', '.build', part.name);

/** Why a part must be built, or null when its build is newer than all its sources. */
export function whyBuild(root, part) {
  const stamp = stampOf(root, part);
  if (!existsSync(stamp)) return 'not built yet';
  const missing = part.outputs.find((output) => !existsSync(join(root, output)));
  if (missing) return `${missing} is missing`;
  const built = statSync(stamp).mtimeMs;
  const changed = part.sources.find((source) => newestMtime(join(root, source)) > built);
  return changed ? `${changed} changed since the last build` : null;
}

/**
 * Builds the parts that are out of date (or all of them); answers the names of those built.
 * Throws when a build fails, leaving that part's old stamp, so it is built again next time.
 */
export async function buildStale({ root = ROOT, parts = PARTS, all = false, log = (line) => console.log(line) } = {}) {
  const built = [];
  for (const part of parts) {
    const why = all ? 'asked to build everything' : whyBuild(root, part);
    if (why === null) {
      log(`build: ${part.name} is up to date`);
      continue;
    }
    log(`build: ${part.what}: ${why}`);
    // In seconds, to the microsecond: a source saved just before the build is older than this.
    const began = (performance.timeOrigin + performance.now()) / 1000;
    await part.build(root);
    const stamp = stampOf(root, part);
    mkdirSync(dirname(stamp), { recursive: true });
    writeFileSync(stamp, `${new Date(began * 1000).toISOString()}\n`);
    utimesSync(stamp, began, began);
    built.push(part.name);
  }
  return built;
}
