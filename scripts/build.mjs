#!/usr/bin/env node
// `npm start` and `npm run build`: builds the server (TypeScript into dist/) and the browser code
// (the web chat and the administration app into dist/web), each only when one of its sources is
// newer than its last complete build, so a start after an unchanged build takes seconds.
//
//   node scripts/build.mjs          build what is out of date (npm start)
//   node scripts/build.mjs --all    build everything (npm run build)
import { buildStale } from './build-stale.mjs';

const args = process.argv.slice(2);
if (args.some((a) => a !== '--all')) {
  console.error('usage: node scripts/build.mjs [--all]');
  process.exit(2);
}
try {
  await buildStale({ all: args.includes('--all') });
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
