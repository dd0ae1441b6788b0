import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

// The same check npm makes before it warns EBADENGINE (npm-install-checks).
const require = createRequire(import.meta.url);
const semver = require('semver') as {
  satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean;
  minVersion(range: string): { version: string } | null;
};

interface Installed {
  path: string;
  name: string;
  version: string;
  node: string;
}

/** Every installed package (nested node_modules folders too) that declares engines.node. */
function installed(dir: string): Installed[] {
  const out: Installed[] = [];
  const folders = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.'));
  for (const entry of folders) {
    const packages = entry.name.startsWith('@')
      ? readdirSync(join(dir, entry.name), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => join(dir, entry.name, e.name))
      : [join(dir, entry.name)];
    for (const path of packages) {
      const manifest = join(path, 'package.json');
      if (existsSync(manifest)) {
        const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string; engines?: { node?: unknown } };
        if (typeof pkg.engines?.node === 'string') out.push({ path, name: pkg.name ?? path, version: pkg.version ?? '?', node: pkg.engines.node });
      }
      const nested = join(path, 'node_modules');
      if (existsSync(nested)) out.push(...installed(nested));
    }
  }
  return out;
}

const root = process.cwd();
const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const packages = installed(join(root, 'node_modules'));

test('every installed package accepts the running Node', () => {
  assert.ok(packages.length > 50, 'node_modules was read');
  const refused = packages.filter((p) => !semver.satisfies(process.version, p.node, { includePrerelease: true }));
  assert.deepEqual(
    refused.map((p) => `${p.name}@${p.version} wants node ${p.node}`),
    [],
    `running ${process.version}`,
  );
});

test('every installed package accepts the oldest Node of each line the project declares (package.json engines)', () => {
  // "^20.19.0 || ^22.13.0 || >=24": the first release of each line it names.
  const floors = own.engines.node.split('||').map((part) => semver.minVersion(part.trim())?.version);
  assert.ok(floors.length > 0 && floors.every((v) => v !== undefined), own.engines.node);
  const refused = floors.flatMap((floor) =>
    packages
      .filter((p) => !semver.satisfies(floor!, p.node, { includePrerelease: true }))
      .map((p) => `${p.name}@${p.version} wants node ${p.node}, not ${floor}`),
  );
  assert.deepEqual(refused, [], `the project says node ${own.engines.node}`);
});
