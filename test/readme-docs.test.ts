import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeBlock } from './helpers/readme.js';

// The walk-throughs beyond README.md (docs/, the sandbox's README) are not run here, but they do
// things one way, the README's, which its tests run: JSON read with `node -p` (no jq), the server
// started as the quick start starts it (never `npm run dev`, never without WEBHOOK_ALLOWLIST),
// and events watched with the quick start's receiver on port 4000.

const PAGES = [
  'README.md',
  'sandbox/README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];

/** Every sh block of a page without its comments, with the page's name. */
function shBlocks(): Array<{ page: string; block: string }> {
  const uncommented = (block: string) =>
    block
      .split('\n')
      .map((l) => l.replace(/(^|\s+)#.*$/, ''))
      .join('\n');
  return PAGES.flatMap((page) => [...readFileSync(page, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => ({ page, block: uncommented(m[1]!) })));
}

test('the walk-throughs read JSON with node -p, start the server and the receiver as the quick start does', () => {
  const start = readmeBlock('server')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .find((l) => l.endsWith('npm start'));
  assert.equal(start, 'WEBHOOK_ALLOWLIST=127.0.0.1 npm start');
  const receiver = readmeBlock('receiver')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .find((l) => l.includes('webhook-receiver.mjs'));
  assert.equal(receiver, 'node scripts/webhook-receiver.mjs 4000 &');

  const blocks = shBlocks();
  assert.ok(blocks.some((b) => b.page === 'docs/connectors.md'));
  for (const { page, block } of blocks) {
    assert.doesNotMatch(block, /\bjq\b/, `${page} reads JSON with node -p, as the README: ${block}`);
    assert.doesNotMatch(block, /npm run dev/, `${page} starts the server with npm start: ${block}`);
    for (const m of block.matchAll(/(?:[A-Z_]+=\S+\s+)*npm start\b/g)) assert.equal(m[0], start, `${page} starts the server as the quick start does`);
    for (const m of block.matchAll(/http:\/\/(?:127\.0\.0\.1|localhost):(\d+)\/(events|hook)\b/g)) {
      assert.equal(m[0], 'http://127.0.0.1:4000/events', `${page}: webhooks go to the quick start's receiver`);
    }
  }
  const connectors = blocks.filter((b) => b.page === 'docs/connectors.md').map((b) => b.block);
  assert.ok(
    connectors.some((b) => b.split('\n').some((l) => l.trim() === receiver)),
    "docs/connectors.md starts the quick start's receiver",
  );
});

test('the README says what npm start builds, as package.json runs it: only what changed, and npm run build everything', () => {
  const readme = readFileSync('README.md', 'utf8');
  const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts as Record<string, string>;
  assert.match(scripts.start!, /^node scripts\/build\.mjs && /, 'npm start builds what is out of date first');
  assert.doesNotMatch(scripts.start!, /--all|npm run build/, 'and never everything');
  assert.equal(scripts.build, 'node scripts/build.mjs --all');
  assert.match(readme, /Later starts build only what changed since \(`scripts\/build\.mjs`/);
  assert.match(readme, /`npm run build` builds\s+everything again/);
  assert.match(readme, /first `npm start` builds the server[\s\S]{0,200}about a minute/);
});
