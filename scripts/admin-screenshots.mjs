#!/usr/bin/env node
// Takes the screenshots of docs/admin.md: a seeded café account (every channel type, a day of
// traffic through the platform stand-ins), every page of the administration app in Chromium.
//
//   node scripts/admin-screenshots.mjs [out-dir]      (default docs/admin)
//
// Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); builds the app first when it is stale.
import { register } from 'tsx/esm/api';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

register();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(process.argv[2] ?? join(root, 'docs', 'admin'));
const { takeAdminScreenshots } = await import('./admin-screenshots/take.ts');
console.log(`screenshots of the administration app into ${outDir}:`);
const written = await takeAdminScreenshots(outDir);
console.log(`${written.length} screenshots`);
process.exit(0);
