import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers/runtime.js';
import { Output, readmeBlock } from './helpers/readme.js';
import { freePortBase, startSandbox } from './sandbox/helpers/sandbox-process.js';

// The README's "An e-mail conversation, threaded", run as written with bash against `npm run
// sandbox` (moved to free ports with SANDBOX_PORT_BASE, which the server is given too) and the
// server as `npm start` runs it (from the sources). Only the ports and the token are replaced.

test("README's e-mail conversation works as written: the route registered, the answer forwarded and stripped, the reply threaded", async (t) => {
  assert.equal(spawnSync('curl', ['--version']).status, 0, 'the commands use curl');
  const dir = mkdtempSync(join(tmpdir(), 'parley-readme-email-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };

  const base = await freePortBase();
  const sandbox = await startSandbox({ SANDBOX_PORT_BASE: String(base), DATA_DIR: join(dir, 'data') });
  t.after(() => sandbox.stop());
  const mpUrl = `http://127.0.0.1:${base + 5}`;

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

  const block = readmeBlock('email-send');
  assert.match(block, /http:\/\/127\.0\.0\.1:9106/, 'the block names the mail stand-in at its default port');
  const shell = spawnSync('bash', ['--noprofile', '--norc', '-e', '-c', block.replace(/http:\/\/127\.0\.0\.1:9106/g, mpUrl)], {
    env: { ...baseEnv, TOKEN: token, API: `http://localhost:${port}/v1` },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(shell.status, 0, `${shell.stdout}\n${shell.stderr}`);
  const lines = shell.stdout.trim().split('\n');
  const conversation = JSON.parse(lines.at(-1)!) as Array<{ direction: string; content: any; metadata?: any }>;
  const headers = JSON.parse(lines.at(-2)!) as { subject: string; in_reply_to: string; references: string };

  // Newest first: the reply, Jana's answer, the first mail.
  assert.deepEqual(
    conversation.map((m) => [m.direction, m.content.payload]),
    [
      ['sent', 'Yes, Friday it is.'],
      ['received', 'Can it come on Friday?'],
      ['sent', 'Your order has shipped.'],
    ],
  );
  assert.deepEqual(conversation[1]!.metadata, { email: { subject: 'Re: Order 1042', to: [{ email: 'shop@mg.sandbox.test', name: null }] } });

  const mails = (await (await fetch(`${mpUrl}/_sandbox/messages`)).json()) as { messages: Array<{ message_id: string; to: string[] }> };
  assert.equal(mails.messages.length, 2);
  assert.deepEqual(mails.messages[0]!.to, ['Jana <jana@example.com>']);
  assert.deepEqual(headers, {
    subject: 'Re: Order 1042',
    in_reply_to: '<answer-1@example.com>',
    references: `<${mails.messages[0]!.message_id}> <answer-1@example.com>`,
  });
  const account = (await (await fetch(`${mpUrl}/_sandbox/account`)).json()) as { routes: Array<{ expression: string; actions: string[] }> };
  assert.equal(account.routes.length, 1);
  assert.equal(account.routes[0]!.expression, 'match_recipient("^shop@mg\\.sandbox\\.test$")');
  assert.match(account.routes[0]!.actions[0]!, new RegExp(`^forward\\("http://localhost:${port}/v1/inbound/\\d+/mail"\\)$`));
});
