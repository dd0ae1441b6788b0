#!/usr/bin/env node
// Runs every test file under test/ with node's test runner (TypeScript through tsx).
// Arguments narrow the run to files whose path contains one of them.
//
// Before the tests, the entry points that tests start as separate processes (the CLI and the
// sandbox) are bundled once into a folder named by PARLEY_TEST_BUILD (see
// test/helpers/entry-points.ts): a bundled process starts about three times faster than one
// that loads the TypeScript loader, and tests start dozens of them.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { build } from 'esbuild';

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

const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, PARLEY_TEST_BUILD: buildDir },
});
const cleanUp = () => rmSync(buildDir, { recursive: true, force: true });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  cleanUp();
  process.exit(code ?? (signal ? 1 : 0));
});
