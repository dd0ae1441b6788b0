import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ESLint } from 'eslint';

/**
 * Each rule ARCHITECTURE.md and the issue tracker rely on is shown to fire on a small probe, and
 * to stay quiet on its lawful twin, with the project's own eslint.config.js: removing a rule from
 * the config fails this file. The probes are linted as text under file names inside the project;
 * the type-aware rules take only files their tsconfig.json lists, so an empty file stands at each
 * name while the tests run.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const CONNECTOR_PROBE = `src/connectors/mobile/lint-probe-${process.pid}.ts`;
const LIB_PROBE = `src/lib/lint-probe-${process.pid}.ts`;
for (const path of [CONNECTOR_PROBE, LIB_PROBE]) writeFileSync(join(root, path), 'export {};\n');
after(() => {
  for (const path of [CONNECTOR_PROBE, LIB_PROBE]) rmSync(join(root, path), { force: true });
});
const eslint = new ESLint({ cwd: root });

async function rulesFiring(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  assert.ok(result, 'ESLint answered no result');
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], 'the probe must parse');
  return result.messages.map((m) => m.ruleId ?? '');
}

test('a connector folder importing another connector folder is refused; the contract and shared files are not', async () => {
  const probe = CONNECTOR_PROBE;
  for (const other of ["'../appmsg_business_messages/api.js'", "'../../connectors/rbm/api.js'"]) {
    const rules = await rulesFiring(probe, `export { statusFailure } from ${other};\n`);
    assert.ok(rules.includes('no-restricted-imports'), `${other}: ${rules.join(', ')}`);
  }
  const lawful = [
    "export type { Sender } from '../contract/outbound.js';",
    "export { httpCall } from '../http.js';",
    "export { retryAfterMs } from '../../lib/retry-after.js';",
    "export { SmsApi } from './api.js';",
  ].join('\n');
  assert.deepEqual(await rulesFiring(probe, `${lawful}\n`), []);
});

test('a promise neither awaited nor handed on is refused', async () => {
  const probe = LIB_PROBE;
  const floating = 'export function f(): void {\n  Promise.resolve(1);\n}\n';
  assert.ok((await rulesFiring(probe, floating)).includes('@typescript-eslint/no-floating-promises'));
  const awaited = 'export async function f(): Promise<void> {\n  await Promise.resolve(1);\n}\n';
  assert.deepEqual(await rulesFiring(probe, awaited), []);
});

test('a switch over a union that misses a member is refused', async () => {
  const probe = LIB_PROBE;
  const switchOver = (cases: string[]): string =>
    [
      "export function f(kind: 'a' | 'b' | 'c'): number {",
      '  switch (kind) {',
      ...cases.map((c, i) => `    case '${c}':\n      return ${i};`),
      '  }',
      '  return -1;',
      '}',
      '',
    ].join('\n');
  assert.ok((await rulesFiring(probe, switchOver(['a', 'b']))).includes('@typescript-eslint/switch-exhaustiveness-check'));
  assert.deepEqual(await rulesFiring(probe, switchOver(['a', 'b', 'c'])), []);
});

test('a promise where a condition or a void callback is expected is refused', async () => {
  const probe = LIB_PROBE;
  const asCondition = 'export async function f(p: Promise<boolean>): Promise<number> {\n  if (p) return 1;\n  return (await p) ? 2 : 3;\n}\n';
  assert.ok((await rulesFiring(probe, asCondition)).includes('@typescript-eslint/no-misused-promises'));
  const asVoidCallback = "import { EventEmitter } from 'node:events';\nexport function f(e: EventEmitter): void {\n  e.on('x', async () => {});\n}\n";
  assert.ok((await rulesFiring(probe, asVoidCallback)).includes('@typescript-eslint/no-misused-promises'));
  const awaited = 'export async function f(p: Promise<boolean>): Promise<number> {\n  return (await p) ? 2 : 3;\n}\n';
  assert.deepEqual(await rulesFiring(probe, awaited), []);
});
