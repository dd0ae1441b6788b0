import { existsSync } from 'node:fs';
import { join } from 'node:path';

// How a test starts the service or the sandbox as a separate process. scripts/run-tests.mjs
// bundles the entry points once per run and names the folder in PARLEY_TEST_BUILD: a spawned
// process then starts in well under a second instead of loading the TypeScript loader and
// transpiling every module again (tests start dozens of CLI commands and servers). Run
// directly (`node --import tsx --test …`), a test falls back to the sources through tsx.

const SOURCES = { cli: 'src/cli.ts', sandbox: 'sandbox/main.ts' } as const;

export type EntryPoint = keyof typeof SOURCES;

/** The arguments for `process.execPath` that run `entry` (the CLI, or `npm run sandbox`). */
export function entryArgs(entry: EntryPoint): string[] {
  const dir = process.env.PARLEY_TEST_BUILD;
  if (dir) {
    const bundle = join(dir, `${entry}.mjs`);
    if (existsSync(bundle)) return [bundle];
  }
  return ['--import', 'tsx', SOURCES[entry]];
}
