#!/usr/bin/env -S node --max-semi-space-size=32
// Runs the built CLI; in a checkout that was not built yet, runs the TypeScript sources.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'src', 'cli.js');
let cli;
if (existsSync(built)) {
  cli = await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(pathToFileURL(join(root, 'src', 'cli.ts')).href);
}
await cli.main(process.argv.slice(2));
