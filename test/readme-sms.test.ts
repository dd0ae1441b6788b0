import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './helpers/runtime.js';
import { Output, readmeBlock } from './helpers/readme.js';
import { freePortBase, startSandbox } from './sandbox/helpers/sandbox-process.js';

// The README's "Send an SMS through the stand-in", run as written: `npm run sandbox` (moved to free
// ports with SANDBOX_PORT_BASE, which the server is given too), the server the way `npm start`
// starts it (from the sources), and the send block with bash. Only the ports and the token are
// replaced.

/** The one command of a block, without its comment. */
function command(name: string): string {
  const lines = readmeBlock(name)
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  assert.equal(lines.length, 1, `the ${name} block is one command`);
  return lines[0]!;
}

test("README's SMS through the stand-in works as written: a production mobile channel with the stand-in's key, the SMS at the stand-in with our id, the message sent", async (t) => {
  assert.equal(spawnSync('curl', ['--version']).status, 0, 'the commands use curl');
  assert.equal(command('sms-sandbox'), 'npm run sandbox');
  assert.equal(command('sms-server'), 'npm start');
  const dir = mkdtempSync(join(tmpdir(), 'parley-readme-sms-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };

  // Terminal 1: the stand-ins, on a free range of ports.
  const base = await freePortBase();
  const sandbox = await startSandbox({ SANDBOX_PORT_BASE: String(base), DATA_DIR: join(dir, 'data') });
  t.after(() => sandbox.stop());
  const smsUrl = `http://127.0.0.1:${base + 2}`;

  // Terminal 2: the server, told where the stand-ins are (SANDBOX_PORT_BASE, as the sandbox prints).
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

  // Terminal 3, with TOKEN and API set as in the quick start.
  const send = readmeBlock('sms-send');
  assert.match(send, /http:\/\/127\.0\.0\.1:9103/, 'the send block names the stand-in at its default port');
  const shell = spawnSync('bash', ['--noprofile', '--norc', '-c', send.replace(/http:\/\/127\.0\.0\.1:9103/g, smsUrl)], {
    env: { ...baseEnv, TOKEN: token, API: `http://localhost:${port}/v1` },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(shell.status, 0, `${shell.stdout}\n${shell.stderr}`);
  const out = shell.stdout;

  // The Send Message answer, then the stand-in's list of what it took.
  const sentMatch = /^\{"id":"(\d+)","direction":"sent"/m.exec(out);
  assert.ok(sentMatch, `Send Message answered the message:\n${out}`);
  const id = sentMatch[1]!;
  const listed = out.indexOf('{"messages":');
  assert.ok(listed >= 0, `the stand-in listed what it took:\n${out}`);
  const list = (JSON.parse(out.slice(listed).trim()) as { messages: Array<Record<string, any>> }).messages;
  const sms = list.filter((m) => m.reference === id || m.params?.reference === id);
  assert.equal(sms.length, 1, `the stand-in took the SMS once, with our id as reference:\n${out}`);
  assert.equal(sms[0]!.originator ?? sms[0]!.params?.originator, 'Parley');

  // Get Message shows it sent (the worker records the provider's answer just after the call).
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/messages/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const message = (await res.json()) as { status: string; contact: { phone_number: string } };
    assert.equal(message.contact.phone_number, '+420601123456');
    if (message.status === 'sent') break;
    assert.ok(Date.now() < deadline, `the message is still ${message.status}`);
    await sleep(100);
  }
});
