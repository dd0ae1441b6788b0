import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { npmStartNodeFlags } from '../helpers/readme.js';

// The image cannot be built here (no registry), so its steps are held to package.json: the
// Dockerfile installs and builds as a checkout does, and starts the server as `npm start` does.
// The compose file and the systemd unit start it the same way.

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string>; engines: { node: string } };
const SERVE = [...npmStartNodeFlags(), 'dist/src/cli.js', 'serve'];

/** The Dockerfile's instructions, without comments and blank lines, each as [keyword, rest]. */
function instructions(): Array<[string, string]> {
  return readFileSync('Dockerfile', 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^([A-Z]+)\s+(.*)$/.exec(l);
      assert.ok(m, `one instruction per line: ${l}`);
      return [m[1]!, m[2]!];
    });
}

test('the Dockerfile installs with npm ci, builds with npm run build and starts as npm start does', () => {
  const steps = instructions();
  const froms = steps.filter(([k]) => k === 'FROM').map(([, v]) => v.split(/\s+/)[0]!);
  assert.ok(froms.length > 0);
  for (const image of froms) {
    const m = /^node:(\d+)-bookworm(-slim)?$/.exec(image);
    assert.ok(m, `a Debian-based Node.js image: ${image}`);
    assert.ok(
      pkg.engines.node.split('||').some((r) => r.trim().startsWith(`^${m[1]}.`)),
      `Node.js ${m[1]} is in engines (${pkg.engines.node})`,
    );
  }
  assert.equal(new Set(froms.map((f) => f.split('-')[0])).size, 1, 'the build and the run stage have the same Node.js major (the compiled addon)');

  const runs = steps.filter(([k]) => k === 'RUN').map(([, v]) => v);
  assert.ok(runs.includes('npm ci'), 'npm ci');
  assert.ok(runs.includes('npm run build'), 'npm run build');
  assert.ok(runs.indexOf('npm ci') < runs.indexOf('npm run build'));
  assert.ok(pkg.scripts.build, 'package.json has the build script the image runs');
  // npm ci needs the lock file in the image before it runs.
  const firstCopy = steps.findIndex(([k]) => k === 'COPY');
  assert.match(steps[firstCopy]![1], /^package\.json package-lock\.json \.\/$/);
  assert.ok(firstCopy < steps.findIndex(([k, v]) => k === 'RUN' && v === 'npm ci'));

  const cmds = steps.filter(([k]) => k === 'CMD');
  assert.equal(cmds.length, 1);
  assert.deepEqual(JSON.parse(cmds[0]![1]), ['node', ...SERVE], 'CMD runs what npm start runs, with its node flags');
  assert.ok(
    steps.some(([k, v]) => k === 'USER' && v !== 'root'),
    'the server does not run as root',
  );

  const ignored = readFileSync('.dockerignore', 'utf8').split('\n');
  for (const local of ['node_modules', 'dist', 'data', '.git']) assert.ok(ignored.includes(local), `.dockerignore leaves out ${local}`);
});

test('compose.yaml runs PostgreSQL, the migration, an API and a worker from the Dockerfile', () => {
  const compose = parse(readFileSync('compose.yaml', 'utf8'), { merge: true }) as { services: Record<string, any> };
  const { postgres, migrate, api, worker } = compose.services;
  assert.match(postgres.image, /^postgres:\d+/);
  for (const service of [migrate, api, worker]) {
    assert.equal(service.build, '.');
    assert.match(service.environment.DATABASE_URL, /^postgres:\/\/parley:.*@postgres:5432\/parley$/);
    assert.match(service.environment.ENCRYPTION_KEY, /^\$\{ENCRYPTION_KEY:\?/, 'one key from .env for every process, required');
  }
  assert.equal(api.environment.ROLE, 'api');
  assert.equal(worker.environment.ROLE, 'worker');
  // The API and the worker run the image's CMD; the migration runs the CLI's migrate command.
  assert.equal(api.command, undefined);
  assert.equal(worker.command, undefined);
  assert.deepEqual(migrate.command, ['node', 'dist/src/cli.js', 'migrate']);
  assert.match(readFileSync('src/cli.ts', 'utf8'), /^\s+migrate\s/m);
  for (const service of [api, worker]) {
    assert.equal(service.depends_on.migrate.condition, 'service_completed_successfully');
    assert.deepEqual(service.volumes, migrate.volumes, 'every process sees the same stored files');
  }
  // Only one process bootstraps the first account on an empty database.
  assert.equal(api.environment.BOOTSTRAP_ACCOUNT, 'true');
  assert.equal(worker.environment.BOOTSTRAP_ACCOUNT, 'false');
});

test('the systemd unit starts the server as npm start does', () => {
  const unit = readFileSync('deploy/systemd/parley.service', 'utf8');
  const exec = /^ExecStart=(\S+) (.*)$/m.exec(unit);
  assert.ok(exec, 'an ExecStart line');
  assert.match(exec[1]!, /\/node$/);
  assert.deepEqual(exec[2]!.split(/\s+/), SERVE);
});

test('the deployment and backup guides run the CLI of the built checkout, never through npx', () => {
  // npx in an installed checkout installs the package into the service user's home and runs that copy.
  for (const doc of ['docs/deploy.md', 'docs/backups.md']) {
    const text = readFileSync(doc, 'utf8');
    assert.doesNotMatch(text, /(^\s*|&& |exec )npx parley /m, doc);
  }
  assert.match(readFileSync('docs/backups.md', 'utf8'), /node dist\/src\/cli\.js backup /);
  assert.match(readFileSync('docs/backups.md', 'utf8'), /node dist\/src\/cli\.js restore --force /);
});

test('the example environment file says what an empty ENCRYPTION_KEY does: a key generated into DATA_DIR', () => {
  const example = readFileSync('deploy/systemd/parley.env.example', 'utf8');
  assert.match(example, /^ENCRYPTION_KEY=$/m);
  assert.doesNotMatch(example, /refuses to start while it is empty/);
  assert.match(example, /DATA_DIR\/encryption\.key/);
  // What the comment says is what the configuration does.
  assert.match(readFileSync('src/config.ts', 'utf8'), /c\.ENCRYPTION_KEY === undefined \? keyFileOf\(dataDir\)/);
});
