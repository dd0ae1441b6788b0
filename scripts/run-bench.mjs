#!/usr/bin/env node
// `npm run bench -- <name> [options]`: runs bench/<name>/run.ts (TypeScript through tsx).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const [name, ...rest] = process.argv.slice(2);
const available = readdirSync('bench', { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join('bench', d.name, 'run.ts')))
  .map((d) => d.name);
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <name> [options]\navailable: ${available.join(', ') || '(none)'}`);
  process.exit(2);
}
const child = spawn(process.execPath, ['--import', 'tsx', join('bench', name, 'run.ts'), ...rest], { stdio: 'inherit', env: process.env });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
