import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildStale, PARTS, type BuildPart } from '../../scripts/build-stale.mjs';
import { npmStartNodeFlags } from '../helpers/readme.js';

// scripts/build.mjs (its logic in scripts/build-stale.mjs), which `npm start` runs before the server: each part of the build is made
// again only when one of its sources is newer than its last complete build. Times are set on the
// files explicitly, so nothing here depends on the clock's resolution.

function project(t: { after: (fn: () => void) => void }) {
  const root = mkdtempSync(join(tmpdir(), 'parley-build-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('src/main.ts', 'one');
  write('src/deep/more.ts', 'two');
  write('web/app.ts', 'three');
  write('shared.json', '{}');
  const runs: string[] = [];
  const part = (name: string, sources: string[], output: string, fail = () => false): BuildPart => ({
    name,
    what: `the ${name}`,
    sources,
    outputs: [output],
    build: (at) => {
      assert.equal(at, root);
      if (fail()) throw new Error(`${name} failed`);
      runs.push(name);
      write(output, `built from ${sources.join(',')}`);
    },
  });
  return { root, write, runs, part };
}

/** Every file's modification time a minute back, as if the last build were a minute old. */
function age(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) age(path);
    const was = statSync(path).mtimeMs / 1000;
    utimesSync(path, was - 60, was - 60);
  }
}

/** A source saved now, after the last build: everything else is aged first. */
function touch(root: string, path: string): void {
  age(root);
  const now = (performance.timeOrigin + performance.now()) / 1000;
  utimesSync(join(root, path), now, now);
}

test('the first run builds every part; the next builds none; a changed source rebuilds only its part', async (t) => {
  const { root, runs, part } = project(t);
  const parts = [part('server', ['src', 'shared.json'], 'dist/server.js'), part('web', ['web', 'shared.json'], 'dist/web.js')];
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);

  assert.deepEqual(await buildStale({ root, parts, log }), ['server', 'web']);
  assert.match(lines.join('\n'), /build: the server: not built yet/);
  assert.deepEqual(await buildStale({ root, parts, log }), [], 'an up-to-date build starts without building');
  assert.match(lines.at(-1)!, /build: web is up to date/);

  touch(root, 'src/deep/more.ts'); // a file deep in a source folder
  assert.deepEqual(await buildStale({ root, parts, log }), ['server']);
  assert.match(lines.join('\n'), /build: the server: src changed since the last build/);
  assert.deepEqual(await buildStale({ root, parts, log }), []);

  touch(root, 'shared.json'); // a source of both
  assert.deepEqual(await buildStale({ root, parts, log }), ['server', 'web']);
  assert.deepEqual(runs, ['server', 'web', 'server', 'server', 'web']);
});

test('--all builds everything; a missing output or a deleted build folder is built again', async (t) => {
  const { root, part } = project(t);
  const parts = [part('server', ['src'], 'dist/server.js'), part('web', ['web'], 'dist/web.js')];
  await buildStale({ root, parts, log: () => {} });
  assert.deepEqual(await buildStale({ root, parts, all: true, log: () => {} }), ['server', 'web']);
  rmSync(join(root, 'dist/web.js'));
  assert.deepEqual(await buildStale({ root, parts, log: () => {} }), ['web']);
  rmSync(join(root, 'dist'), { recursive: true });
  assert.deepEqual(await buildStale({ root, parts, log: () => {} }), ['server', 'web']);
});

test('a failed build is tried again next time, and so is one whose sources changed while it ran', async (t) => {
  const { root, part, write } = project(t);
  let failing = true;
  const parts = [part('server', ['src'], 'dist/server.js', () => failing)];
  await assert.rejects(buildStale({ root, parts, log: () => {} }), /server failed/);
  assert.equal(existsSync(join(root, 'dist/.build/server')), false, 'no stamp for a failed build');
  failing = false;
  assert.deepEqual(await buildStale({ root, parts, log: () => {} }), ['server']);

  // A build that fails after an earlier success keeps the old stamp: its sources are still newer.
  touch(root, 'src/main.ts');
  failing = true;
  await assert.rejects(buildStale({ root, parts, log: () => {} }));
  failing = false;
  assert.deepEqual(await buildStale({ root, parts, log: () => {} }), ['server']);

  // An edit made during the build is newer than the moment the build began.
  const editing: BuildPart = {
    ...parts[0]!,
    build: () => {
      write('src/main.ts', 'edited meanwhile');
      const now = (performance.timeOrigin + performance.now()) / 1000; // the file system's own clock may lag by a tick
      utimesSync(join(root, 'src/main.ts'), now, now);
      write('dist/server.js', 'built');
    },
  };
  touch(root, 'src/main.ts');
  assert.deepEqual(await buildStale({ root, parts: [editing], log: () => {} }), ['server']);
  assert.deepEqual(await buildStale({ root, parts, log: () => {} }), ['server']);
});

test("the project's parts name sources that exist, and npm start builds only what is stale before it serves", () => {
  for (const part of PARTS) {
    for (const source of part.sources) assert.ok(existsSync(source), `${part.name}: ${source} exists`);
    assert.ok(part.outputs.every((o) => o.startsWith('dist/')));
  }
  const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts;
  assert.equal(scripts.build, 'node scripts/build.mjs --all');
  assert.match(scripts.start, /^node scripts\/build\.mjs && node /);
  assert.deepEqual(npmStartNodeFlags(), ['--max-semi-space-size=32']);
});

test("each part is rebuilt when any of its inputs changes: the server's code and settings, the browser code, the locked dependencies", () => {
  const part = (name: string) => PARTS.find((p) => p.name === name)!;
  const covers = (name: string, input: string) => part(name).sources.some((source) => input === source || input.startsWith(`${source}/`));
  for (const input of ['src/cli.ts', 'src/api/app.ts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) {
    assert.ok(covers('server', input), `the server is rebuilt when ${input} changes`);
  }
  for (const input of ['web/admin/src', 'web/admin/vite.config.ts', 'web/admin/tsconfig.json', 'web/widget/index.ts', 'src/schemas', 'package-lock.json']) {
    assert.ok(covers('web', input), `the browser code is rebuilt when ${input} changes`);
  }
  assert.deepEqual(part('web').outputs, ['dist/web/widget.js', 'dist/web/chat-client.js', 'dist/web/admin/index.html']);
});
