import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './helpers/runtime.js';
import { adminSession, npmStartNodeFlags, Output, readmeBlock } from './helpers/readme.js';
import { freePortBase, startSandbox } from './sandbox/helpers/sandbox-process.js';
import { STAND_INS } from '../sandbox/registry.js';

// The README's "Send an SMS through the stand-in", run as written: `npm run sandbox` (moved to free
// ports with SANDBOX_PORT_BASE, which the server is given too), the server the way `npm start`
// starts it (from the sources), and the send block with bash. Only the ports and the token are
// replaced. The server is started as the quick start starts it, with the lines the sandbox printed.

/** `NAME=value ... npm start` as a block writes it: its variables. */
function startEnv(line: string, what: string): Record<string, string> {
  const m = /^((?:[A-Z_]+=\S+\s+)*)npm start$/.exec(line);
  assert.ok(m, `${what} starts the server with npm start: ${line}`);
  return Object.fromEntries(
    m[1]!
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((a) => a.split('=') as [string, string]),
  );
}

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
  // The server starts again as in the quick start: a plain `npm start` would drop WEBHOOK_ALLOWLIST.
  const quickStart = readmeBlock('server')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .find((l) => l.endsWith('npm start'));
  const readmeEnv = startEnv(command('sms-server'), 'the SMS section');
  assert.deepEqual(readmeEnv, startEnv(quickStart ?? '', 'the quick start'));
  const dir = mkdtempSync(join(tmpdir(), 'parley-readme-sms-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };

  // Terminal 1: the stand-ins, on a free range of ports.
  const base = await freePortBase();
  const sandbox = await startSandbox({ SANDBOX_PORT_BASE: String(base), DATA_DIR: join(dir, 'data') });
  t.after(() => sandbox.stop());
  const smsUrl = `http://127.0.0.1:${base + 2}`;

  // Terminal 2: the server, told where the stand-ins are (SANDBOX_PORT_BASE, as the sandbox prints).
  const port = await freePort();
  const server = spawn(process.execPath, [...npmStartNodeFlags(), '--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { ...baseEnv, ...sandbox.settings, ...readmeEnv, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(dir, 'data') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const serverOut = new Output(server);
  t.after(() => {
    if (server.exitCode === null) server.kill('SIGTERM');
  });
  const token = (await serverOut.waitFor(/prl_[A-Za-z0-9]{40}/, 'the first start token', server))[0];
  await serverOut.waitFor(/Server listening/, 'the server listening', server);

  // The lines the sandbox printed turn on the administration app's Local trial.
  assert.equal(sandbox.settings.SANDBOX_URL, `http://127.0.0.1:${base}`, sandbox.output());
  assert.match(sandbox.output(), /paste these lines into the terminal where you start the server/);
  const admin = await adminSession(serverOut.text, port);
  const trial = await admin.get('/trial');
  assert.deepEqual(await trial.json(), { available: true, sandbox_url: `http://127.0.0.1:${base}` });

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

test("README's ports of the stand-ins are the sandbox's: one per stand-in, from 9101 or a moved base", () => {
  const readme = readFileSync('README.md', 'utf8');
  const last = Math.max(...STAND_INS.map((e) => e.portOffset));
  assert.equal(STAND_INS.length, last + 1, 'one port per stand-in');
  assert.match(readme, new RegExp(`stand-ins on 127\\.0\\.0\\.1:9101-${9101 + last}\\b`));
  assert.match(readme, new RegExp(`SANDBOX_PORT_BASE=9200 npm run sandbox\` moves them to ports 9200-${9200 + last}\\b`));
  const words = ['none', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
  assert.match(readme, new RegExp(`\\(${words[STAND_INS.length] ?? STAND_INS.length} in all\\)`));
  for (const range of readme.matchAll(/\b(9[12]\d\d)-(9[12]\d\d)\b/g))
    assert.equal(Number(range[2]) - Number(range[1]), last, `${range[0]} spans every stand-in`);
});
