import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers/runtime.js';
import { Output, readmeBlock } from './helpers/readme.js';
import { freePortBase, startSandbox } from './sandbox/helpers/sandbox-process.js';

// The README's "An appmsg bot account: a subscriber, a keyboard and its tap", run as written with
// bash against `npm run sandbox` (moved to free ports with SANDBOX_PORT_BASE, which the server is
// given too) and the server as `npm start` runs it (from the sources). Only the ports and the token
// are replaced.

test("README's appmsg account works as written: the webhook registered, the keyboard at the platform, the tap back as a quick reply", async (t) => {
  assert.equal(spawnSync('curl', ['--version']).status, 0, 'the commands use curl');
  const dir = mkdtempSync(join(tmpdir(), 'parley-readme-appmsg-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };

  const base = await freePortBase();
  const sandbox = await startSandbox({ SANDBOX_PORT_BASE: String(base), DATA_DIR: join(dir, 'data') });
  t.after(() => sandbox.stop());
  const amUrl = `http://127.0.0.1:${base + 3}`;

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

  const block = readmeBlock('appmsg-send');
  assert.match(block, /http:\/\/127\.0\.0\.1:9104/, 'the block names the appmsg stand-in at its default port');
  const shell = spawnSync('bash', ['--noprofile', '--norc', '-e', '-c', block.replace(/http:\/\/127\.0\.0\.1:9104/g, amUrl)], {
    env: { ...baseEnv, TOKEN: token, API: `http://localhost:${port}/v1` },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(shell.status, 0, `${shell.stdout}\n${shell.stderr}`);
  const listed = JSON.parse(shell.stdout.trim().split('\n').at(-1)!) as Array<{ direction: string; content: any }>;
  assert.equal(listed.length, 1, shell.stdout);
  assert.equal(listed[0]!.direction, 'received');
  assert.deepEqual(listed[0]!.content, { type: 'text', payload: 'BOOK', quick_reply: { payload: 'BOOK' } });

  // The account's webhook points at the channel; the platform took the answer with its keyboard once.
  const bots = (await (await fetch(`${amUrl}/_sandbox/bots`)).json()) as { bots: Array<{ id: string; webhook: { url: string } | null }> };
  const bot = bots.bots.at(-1)!;
  assert.match(bot.webhook?.url ?? '', new RegExp(`^http://localhost:${port}/v1/inbound/\\d+/events$`));
  const sent = (await (await fetch(`${amUrl}/_sandbox/bots/${encodeURIComponent(bot.id)}/messages`)).json()) as { messages: Array<{ body: any }> };
  assert.equal(sent.messages.length, 1);
  assert.equal(sent.messages[0]!.body.text, 'Yes, until 10 pm.');
  assert.deepEqual(
    sent.messages[0]!.body.keyboard.Buttons.map((b: any) => [b.ActionType, b.ActionBody, b.Text]),
    [['reply', 'BOOK', 'Book a table']],
  );
});
