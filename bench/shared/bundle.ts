import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');
/** Inside the project (.tmp/ is ignored by git), so the bundles resolve packages from its node_modules. */
const BUILD = join(ROOT, '.tmp/bench');

/**
 * Bundles a benchmark's server script (a path from the project's root) to plain JavaScript, as a
 * production build runs, and answers the bundle's path. Under the tsx loader a process carries the
 * TypeScript compiler and source maps (about 60 MB of RSS production does not have) and answers
 * far fewer requests a second. Dependencies stay in node_modules (not bundled).
 */
export async function bundleServer(script: string): Promise<string> {
  const outfile = join(BUILD, script.replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [join(ROOT, script)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}
