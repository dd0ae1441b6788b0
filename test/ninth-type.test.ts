import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// The target of docs/connectors.md ("How to add a channel type"): a ninth type is its own module
// folder, its stand-in, its tests and docs, and one line in the list of modules (with its import,
// and its name in the vocabulary of the schemas, the lowest layer). This copies the project's
// trees, adds the scratch type from test/fixtures/ninth-type exactly that way, typechecks the
// copy, runs the type's own test there (a channel made over HTTP, a message reaching the stand-in
// and the message_echo webhook), and checks that nothing else had to change.

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = join(ROOT, 'test/fixtures/ninth-type');
const TREES = ['src', 'sandbox', 'test'];

/** Every file under the trees, by path from the root, with its lines. */
function snapshot(root: string): Map<string, string[]> {
  const files = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(relative(root, path), readFileSync(path, 'utf8').split('\n'));
    }
  };
  for (const tree of TREES) walk(join(root, tree));
  return files;
}

/** Inserts `line` after the last line matching `after`. */
function insertAfter(file: string, after: RegExp, line: string): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.map((l) => after.test(l)).lastIndexOf(true);
  assert.notEqual(at, -1, `${file}: no line matches ${after}`);
  lines.splice(at + 1, 0, line);
  writeFileSync(file, lines.join('\n'));
}

function template(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(join(FIXTURE, from), to);
}

test(
  'a ninth channel type is its module folder, its stand-in, its test and docs, its entry in the list and its name in the vocabulary',
  { timeout: 600_000 },
  async (t) => {
    mkdirSync(join(ROOT, '.tmp'), { recursive: true });
    const copying = Date.now();
    const copy = mkdtempSync(join(ROOT, '.tmp', 'ninth-type-'));
    t.after(() => rmSync(copy, { recursive: true, force: true }));
    for (const tree of TREES)
      cpSync(join(ROOT, tree), join(copy, tree), { recursive: true, filter: (src) => !src.includes(`${join('test', 'fixtures', 'ninth-type')}`) });
    for (const file of ['package.json', 'tsconfig.json']) cpSync(join(ROOT, file), join(copy, file));
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const before = snapshot(copy);

    // The module folder, the stand-in, the test: files of their own.
    for (const name of ['definition.ts', 'config.ts', 'connector.ts', 'module.ts', 'README.md'])
      template(`module/${name}.tpl`, join(copy, 'src/connectors/scratch', name));
    for (const name of ['server.ts', 'README.md']) template(`stand-in/${name}.tpl`, join(copy, 'sandbox/scratchbox', name));
    template('scratch.test.ts.tpl', join(copy, 'test/connectors/scratch.test.ts'));
    // The lines: its module in the list (with its import), its name in the vocabulary.
    const list = join(copy, 'src/channel-types/modules.ts');
    insertAfter(list, /^import \{ \w+Module \} from/, "import { scratchModule } from '../connectors/scratch/module.js';");
    insertAfter(list, /^ {2}\w+: \w+Module,$/, '  scratch: scratchModule,');
    const names = join(copy, 'src/schemas/channel-types.ts');
    writeFileSync(names, readFileSync(names, 'utf8').replace("'email'] as const", "'email', 'scratch'] as const"));

    const after = snapshot(copy);
    const added = [...after.keys()].filter((f) => !before.has(f)).sort();
    const changed = [...after.keys()].filter((f) => before.has(f) && before.get(f)!.join('\n') !== after.get(f)!.join('\n'));
    assert.deepEqual(added, [
      'sandbox/scratchbox/README.md',
      'sandbox/scratchbox/server.ts',
      'src/connectors/scratch/README.md',
      'src/connectors/scratch/config.ts',
      'src/connectors/scratch/connector.ts',
      'src/connectors/scratch/definition.ts',
      'src/connectors/scratch/module.ts',
      'test/connectors/scratch.test.ts',
    ]);
    const grown = Object.fromEntries(changed.map((f) => [f, after.get(f)!.filter((l) => !before.get(f)!.includes(l)).length]));
    assert.deepEqual(
      grown,
      { 'src/channel-types/modules.ts': 2, 'src/schemas/channel-types.ts': 1 },
      'the module in the list (a line and its import) and the name in the vocabulary: two files, three lines',
    );

    // The copy compiles: everything derived from the list accepts the new type without another edit.
    writeFileSync(
      join(copy, 'tsconfig.check.json'),
      JSON.stringify({ extends: './tsconfig.json', include: ['src', 'sandbox', 'test/connectors/scratch.test.ts'] }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const typechecking = Date.now();
    const typecheck = await run(process.execPath, [tsc, '-p', 'tsconfig.check.json', '--noEmit'], { cwd: copy }).catch((e: { stdout: string }) => e);
    assert.equal('code' in typecheck ? typecheck.stdout : '', '', 'the copy typechecks');

    // And it works over HTTP: the type's own test, run in the copy.
    // A test process of its own, not a subtest of this one (node:test marks its children in the environment).
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT' && name !== 'NODE_OPTIONS'));
    const started = Date.now();
    const result = await run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', 'test/connectors/scratch.test.ts'], {
      cwd: copy,
      env,
    }).catch((e: { stdout: string; stderr: string }) => e);
    assert.ok(!('code' in result), `the scratch type's test failed:\n${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /# pass 1/);
    t.diagnostic(`copy ${typechecking - copying} ms, typecheck ${started - typechecking} ms, the scratch type's test ${Date.now() - started} ms`);
  },
);
