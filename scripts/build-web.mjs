#!/usr/bin/env node
// Builds the browser code the server serves: the embeddable web chat (dist/web/widget.js, one
// script tag), its typed client library as an ES module (dist/web/chat-client.js), and the
// administration app (web/admin, built by Vite into dist/web/admin).
// The server builds the chat bundles in memory when it runs from source (src/api/routes/widget.ts).
import { build } from 'esbuild';
import { buildAdminApp } from './build-admin-app.mjs';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
mkdirSync(out, { recursive: true });

const common = { bundle: true, minify: true, sourcemap: true, platform: 'browser', target: ['es2020'], legalComments: 'none', logLevel: 'warning' };

await build({ ...common, entryPoints: [join(root, 'web/widget/index.ts')], format: 'iife', outfile: join(out, 'widget.js') });
await build({ ...common, entryPoints: [join(root, 'web/widget/client.ts')], format: 'esm', outfile: join(out, 'chat-client.js') });
console.log(`web chat built into ${out}`);

console.log(`administration app built into ${await buildAdminApp()}`);
