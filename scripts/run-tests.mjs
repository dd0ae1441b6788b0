#!/usr/bin/env node
// Runs every test file under test/ with node's test runner, two files at a time.
// Arguments narrow the run to files whose path contains one of them.
//
// TypeScript is compiled once per run, not once per test process: the test files are bundled
// with esbuild (shared code split into common chunks) and run as JavaScript with source maps,
// which saves each of the ~80 test processes a second or more of CPU spent loading the
// TypeScript loader and transforming the same modules again. Each module keeps its own
// import.meta.url (its source file), so code that finds files next to itself behaves as when run
// from the sources. PARLEY_TEST_SOURCES=1 runs the sources through tsx instead, as does a
// failed bundle.
//
// Progress shows as files finish, one line each (scripts/test-reporter.mjs: "[N/M] file (time,
// elapsed)"), failures in full; the run ends with its wall time, bundling included.
//
// The entry points that tests start as separate processes (the CLI and the sandbox) are bundled
// too, into the folder named by PARLEY_TEST_BUILD (see test/helpers/entry-points.ts): a bundled
// process starts about three times faster than one that loads the TypeScript loader, and tests
// start dozens of them.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import { adminAppStale, buildAdminApp } from './build-admin-app.mjs';

const runStarted = Date.now();

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'helpers' && name !== 'fixtures') out.push(...find(path));
    } else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

// The files that take longest (they start processes or a browser) go first: two at a time,
// a long file started last would leave one core idle while it finishes alone.
const SLOW_FIRST = [
  'test/scale-out/scale-out.test.ts',
  'test/ninth-type.test.ts',
  'test/cli.test.ts',
  'test/delivery/crash.test.ts',
  'test/delivery/two-workers.test.ts',
  'test/browser/widget-busy.test.ts',
  'test/sandbox/sandbox-run.test.ts',
  'test/browser/widget-outbox.test.ts',
  'test/browser/widget.test.ts',
  'test/api/shared-quota.test.ts',
  'test/readme-quickstart.test.ts',
  'test/api/fuzz.test.ts',
  'test/delivery/backlog.test.ts',
  'test/backup.test.ts',
];
const rank = (file) => {
  const at = SLOW_FIRST.findIndex((slow) => file.endsWith(slow));
  return at === -1 ? SLOW_FIRST.length : at;
};

const filters = process.argv.slice(2);
const files = find('test')
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// The administration app's browser tests serve the built app: build it first when it is older
// than its sources (test/helpers/admin-browser.ts does the same when a file runs alone).
if (files.some((f) => f.includes('admin-browser')) && adminAppStale()) {
  console.error('building the administration app (web/admin) for its browser tests');
  await buildAdminApp();
}

// Inside the project (.tmp/ is ignored by git), so the bundles resolve packages from its
// node_modules; one folder per run, so runs at the same time do not share one.
mkdirSync('.tmp', { recursive: true });
const buildDir = resolve(mkdtempSync(join('.tmp', 'test-build-')));
try {
  await build({
    entryPoints: { cli: 'src/cli.ts', sandbox: 'sandbox/main.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outdir: buildDir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'silent',
  });
} catch (error) {
  // The tests that start these processes will report the same problem; the others still run.
  console.error(`could not bundle the entry points, starting them through tsx: ${error.message}`);
}

/** Every module's `import.meta.url` stays the URL of its source file, not of the bundle. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
      loader: 'ts',
    }));
  },
};

let run = ['--import', 'tsx', '--test', ...files];
if (process.env.PARLEY_TEST_SOURCES !== '1') {
  try {
    const outdir = join(buildDir, 'tests');
    await build({
      entryPoints: files,
      bundle: true,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: 'linked',
      outdir,
      outbase: '.',
      outExtension: { '.js': '.mjs' },
      plugins: [sourceUrls],
      logLevel: 'silent',
    });
    run = ['--enable-source-maps', '--test', ...files.map((f) => join(outdir, f.replace(/\.ts$/, '.mjs')))];
  } catch (error) {
    console.error(`could not bundle the tests, running the sources through tsx: ${error.message}`);
  }
}

const bundled = Date.now();
console.log(`${files.length} test files, two at a time (prepared in ${((bundled - runStarted) / 1000).toFixed(1)} s)`);
const reporter = fileURLToPath(new URL('./test-reporter.mjs', import.meta.url));
const child = spawn(
  process.execPath,
  [...run.slice(0, -files.length), '--test-concurrency=2', `--test-reporter=${reporter}`, '--test-reporter-destination=stdout', ...run.slice(-files.length)],
  {
    stdio: 'inherit',
    env: { ...process.env, PARLEY_TEST_BUILD: buildDir, PARLEY_TEST_FILE_COUNT: String(files.length) },
  },
);
const cleanUp = () => rmSync(buildDir, { recursive: true, force: true });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  cleanUp();
  const wall = (Date.now() - runStarted) / 1000;
  console.log(`wall time ${Math.floor(wall / 60)}:${String(Math.floor(wall % 60)).padStart(2, '0')} (${wall.toFixed(1)} s)${code === 0 ? '' : ' - failed'}`);
  process.exit(code ?? (signal ? 1 : 0));
});
