import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers/runtime.js';
import { adminSession, npmStartNodeFlags, Output, readmeBlock } from './helpers/readme.js';

// The README's quick start, run as written: the shell blocks marked <!-- quickstart:... --> are
// taken from README.md and run with bash against a server started the way `npm start` starts it
// (from the sources instead of the build). Only what a newcomer fills in or cannot have here is
// replaced: the token printed at first start, and the ports (8080 and 4000 may be taken).

function replaceAll(text: string, from: RegExp, to: string, what: string): string {
  assert.match(text, from, `the quick start names ${what}`);
  return text.replace(new RegExp(from.source, 'g'), to);
}

test('the quick start of README.md works as written: 201 for the first message, a signed message_echo at the receiver', async (t) => {
  assert.equal(spawnSync('curl', ['--version']).status, 0, 'the quick start uses curl');
  const dir = mkdtempSync(join(tmpdir(), 'parley-quickstart-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };

  // Terminal 1: `npm ci` (the dependencies are installed here already) and `... npm start`.
  const [install, start, ...rest] = readmeBlock('server')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  assert.equal(install, 'npm ci');
  assert.deepEqual(rest, []);
  const startLine = /^((?:[A-Z_]+=\S+\s+)*)npm start$/.exec(start ?? '');
  assert.ok(startLine, `the server starts with npm start: ${start}`);
  const readmeEnv = Object.fromEntries(
    startLine[1]!
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((a) => a.split('=') as [string, string]),
  );
  const nodeFlags = npmStartNodeFlags();
  const port = await freePort();
  const server = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { ...baseEnv, ...readmeEnv, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(dir, 'data') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const serverOut = new Output(server);
  t.after(() => {
    if (server.exitCode === null) server.kill('SIGTERM');
  });
  const token = (await serverOut.waitFor(/prl_[A-Za-z0-9]{40}/, 'the first start token', server))[0];
  await serverOut.waitFor(/Server listening/, 'the server listening', server);

  // Terminal 2, as a newcomer types it: the receiver first, then the first message.
  const receiverPort = await freePort();
  const movePort = (text: string) => replaceAll(text, /\b4000\b/, String(receiverPort), 'the receiver port');
  const receiverBlock = movePort(
    replaceAll(replaceAll(readmeBlock('receiver'), /prl_\.\.\./, token, 'the token'), /localhost:8080/, `localhost:${port}`, 'the API address'),
  );
  const messageBlock = movePort(readmeBlock('first-message'));
  const shell = spawn('bash', ['--noprofile', '--norc'], { cwd: process.cwd(), env: baseEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const shellOut = new Output(shell);
  t.after(() => {
    // The receiver runs in the background of that shell: stop the whole group.
    try {
      process.kill(-shell.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  });
  shell.stdin!.write(`${receiverBlock}\n`);
  await shellOut.waitFor(/Webhook receiver on http:\/\/127\.0\.0\.1:\d+\//, 'the receiver listening', shell);
  shell.stdin!.write(`${messageBlock}\necho __quickstart_sent__\n`);
  await shellOut.waitFor(/__quickstart_sent__/, 'the end of the commands', shell);

  assert.match(shellOut.text, /HTTP\/1\.1 201 Created/, shellOut.text);
  const location = new RegExp(`location: (http://localhost:${port}/v1/messages/\\d+)`, 'i').exec(shellOut.text);
  assert.ok(location, shellOut.text);
  const sent = await (await fetch(location[1]!.replace('localhost', '127.0.0.1'), { headers: { authorization: `Bearer ${token}` } })).json();
  assert.equal(sent.contact.phone_number, '+420601123456', 'the contact was created from the phone number');

  const echo = await shellOut.waitFor(/message_echo \(event \d+, attempt 1\) signature (\S+)\n(\{[\s\S]*?\n\})\n/, 'the message_echo at the receiver', shell);
  assert.equal(echo[1], 'verified');
  const event = JSON.parse(echo[2]!);
  assert.equal(event.data.id, sent.id);
  assert.equal(event.data.contact.id, sent.contact.id);
  assert.deepEqual(event.data.content, { type: 'text', payload: 'Hello from Parley' });

  // The receiver does check: the same event with a wrong signature is refused.
  const forged = await fetch(`http://127.0.0.1:${receiverPort}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature': 'sha1=00', 'x-hub-signature-256': 'sha256=00' },
    body: JSON.stringify(event),
  });
  assert.equal(forged.status, 401);
  await shellOut.waitFor(/message_echo \(event \?, attempt \?\) signature INVALID/, 'the refused event', shell);

  // The administration app's "Send test event", as its Webhook tab sends it, signed in with the
  // first start's setup link: the receiver verifies it as it does every event.
  const readme = readFileSync('README.md', 'utf8');
  assert.match(readme, /\*\*Send test event\*\*[\s\S]{0,200}`webhook_test \(event \.\.\., attempt 1\) signature verified`/);
  const admin = await adminSession(serverOut.text, port);
  const queued = await admin.post(`/channels/${sent.channel.id}/webhook/test`);
  assert.equal(queued.status, 202, await queued.text());
  const test = await shellOut.waitFor(/webhook_test \(event \d+, attempt 1\) signature (\S+)\n(\{[\s\S]*?\n\})\n/, 'the webhook_test at the receiver', shell);
  assert.equal(test[1], 'verified', shellOut.text);
  assert.deepEqual(JSON.parse(test[2]!).data, { channel: { id: sent.channel.id, type: 'mobile', name: 'SMS test' } });
});
