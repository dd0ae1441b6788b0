import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers/runtime.js';
import { Output, readmeBlock } from './helpers/readme.js';
import { freePortBase, startSandbox } from './sandbox/helpers/sandbox-process.js';

// The README's "An rbm channel from creation to a delivered message", run as written with bash
// against `npm run sandbox` (moved to free ports with SANDBOX_PORT_BASE, which the server is given
// too) and the server as `npm start` runs it (from the sources). Only the ports and the token are
// replaced.

test("README's rbm channel works as written: the agent's state read from the platform, the message at the stand-in once, delivered", async (t) => {
  assert.equal(spawnSync('curl', ['--version']).status, 0, 'the commands use curl');
  const dir = mkdtempSync(join(tmpdir(), 'parley-readme-rbm-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };

  const base = await freePortBase();
  const sandbox = await startSandbox({ SANDBOX_PORT_BASE: String(base), DATA_DIR: join(dir, 'data') });
  t.after(() => sandbox.stop());
  const rbmUrl = `http://127.0.0.1:${base + 4}`;

  const npmStart = /^npm run build && node (.*)dist\/src\/cli\.js serve$/.exec(JSON.parse(readFileSync('package.json', 'utf8')).scripts.start);
  assert.ok(npmStart, 'npm start builds, then runs the built CLI');
  const port = await freePort();
  const server = spawn(process.execPath, [...npmStart[1]!.trim().split(/\s+/).filter(Boolean), '--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { ...baseEnv, ...sandbox.settings, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(dir, 'data') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const serverOut = new Output(server);
  t.after(() => {
    if (server.exitCode === null) server.kill('SIGTERM');
  });
  const token = (await serverOut.waitFor(/prl_[A-Za-z0-9]{40}/, 'the first start token', server))[0];
  await serverOut.waitFor(/Server listening/, 'the server listening', server);

  const block = readmeBlock('rbm-send');
  assert.match(block, /http:\/\/127\.0\.0\.1:9105/, 'the block names the rbm stand-in at its default port');
  const shell = spawnSync('bash', ['--noprofile', '--norc', '-e', '-c', block.replace(/http:\/\/127\.0\.0\.1:9105/g, rbmUrl)], {
    env: { ...baseEnv, TOKEN: token, API: `http://localhost:${port}/v1` },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(shell.status, 0, `${shell.stdout}\n${shell.stderr}`);
  const lines = shell.stdout.trim().split('\n');
  assert.equal(lines[0], 'launched', `the channel shows the agent's state:\n${shell.stdout}`);
  const message = JSON.parse(lines.at(-1)!) as { id: string; status: string; delivered: string | null; contact: { phone_number: string } };
  assert.equal(message.status, 'delivered', shell.stdout);
  assert.notEqual(message.delivered, null);
  assert.equal(message.contact.phone_number, '+420601123456');

  // The stand-in took the message once, under the UUID made from our id.
  const agents = (await (await fetch(`${rbmUrl}/_sandbox/agents`)).json()) as { agents: Array<{ id: string }> };
  const taken = (await (await fetch(`${rbmUrl}/_sandbox/agents/${agents.agents.at(-1)!.id}/messages`)).json()) as {
    messages: Array<{ body: any; messageId: string }>;
  };
  assert.equal(taken.messages.length, 1);
  assert.equal(taken.messages[0]!.body.contentMessage.text, 'Your latte is ready.');
  assert.match(taken.messages[0]!.messageId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
