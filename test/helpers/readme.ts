/**
 * What the README tests share: the shell blocks of README.md marked `<!-- quickstart:<name> -->`,
 * and a process's output collected and waited on (bounded).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const README = readFileSync('README.md', 'utf8');

/** The sh block after the marker `<!-- quickstart:<name> -->`. */
export function readmeBlock(name: string): string {
  const at = README.indexOf(`<!-- quickstart:${name} -->`);
  assert.ok(at >= 0, `README.md has no <!-- quickstart:${name} --> marker`);
  const m = /```sh\n([\s\S]*?)```/.exec(README.slice(at));
  assert.ok(m, `no sh block after the ${name} marker`);
  return m[1]!;
}

/** Collects a process's output and waits (bounded) for something in it. */
export class Output {
  text = '';
  constructor(child: ChildProcess) {
    child.stdout?.on('data', (d) => (this.text += String(d)));
    child.stderr?.on('data', (d) => (this.text += String(d)));
  }
  async waitFor(pattern: RegExp, what: string, child: ChildProcess): Promise<RegExpExecArray> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const m = pattern.exec(this.text);
      if (m) return m;
      if (child.exitCode !== null) assert.fail(`${what}: the process exited (${child.exitCode}):\n${this.text}`);
      if (Date.now() > deadline) assert.fail(`${what} did not appear:\n${this.text}`);
      await sleep(50);
    }
  }
}
