import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/runtime.js';
import { Output, readmeBlock } from '../helpers/readme.js';
import { freePortBase, startSandbox } from '../sandbox/helpers/sandbox-process.js';

// The README's "A business message to a phone number", run as written with bash against
// `npm run sandbox` (moved to free ports with SANDBOX_PORT_BASE, which the server is given too) and
// the server as `npm start` runs it (from the sources). Only the ports and the token are replaced.

test("README's business message works as written: the channel's TTL given to the platform, the message taken once under the sender id, delivered", async (t) => {
  assert.equal(spawnSync('curl', ['--version']).status, 0, 'the commands use curl');
  const dir = mkdtempSync(join(tmpdir(), 'parley-readme-business-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };

  const base = await freePortBase();
  const sandbox = await startSandbox({ SANDBOX_PORT_BASE: String(base), DATA_DIR: join(dir, 'data') });
  t.after(() => sandbox.stop());
  const standIn = `http://127.0.0.1:${base + 6}`;

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

  const block = readmeBlock('business-send');
  assert.match(block, /http:\/\/127\.0\.0\.1:9107/, 'the block names the stand-in at its default port');
  const shell = spawnSync('bash', ['--noprofile', '--norc', '-e', '-c', block.replace(/http:\/\/127\.0\.0\.1:9107/g, standIn)], {
    env: { ...baseEnv, TOKEN: token, API: `http://localhost:${port}/v1` },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(shell.status, 0, `${shell.stdout}\n${shell.stderr}`);
  const message = JSON.parse(shell.stdout.trim().split('\n').at(-1)!) as {
    id: string;
    status: string;
    delivered: string | null;
    contact: { phone_number: string };
  };
  assert.equal(message.status, 'delivered', shell.stdout);
  assert.notEqual(message.delivered, null);
  assert.equal(message.contact.phone_number, '+420601123456');

  // The stand-in took it once, under the sender id, with our id as seq and the channel's TTL.
  const taken = (await (await fetch(`${standIn}/_sandbox/messages?service_id=1234`)).json()) as {
    messages: Array<{ seq: number; dest: string; ttl: number; type: number; body: any }>;
  };
  assert.equal(taken.messages.length, 1);
  assert.equal(String(taken.messages[0]!.seq), message.id);
  assert.equal(taken.messages[0]!.dest, '420601123456');
  assert.equal(taken.messages[0]!.body.message['#txt'], 'Your order has shipped.');
  assert.ok(taken.messages[0]!.ttl > 1150 && taken.messages[0]!.ttl <= 1200, `the channel's PT20M less what passed: ${taken.messages[0]!.ttl}`);
});
