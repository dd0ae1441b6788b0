import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { appendEvent, channelWithWebhook, deliveryOf } from '../helpers/factories.js';
import { eventually, expectQuiet } from '../helpers/waits.js';

/** The example receiver of docs/webhooks.md, exactly as printed there. */
function exampleReceiver(): string {
  const doc = readFileSync('docs/webhooks.md', 'utf8');
  const start = doc.indexOf('<!-- example-receiver -->');
  const match = /```js\n([\s\S]*?)```/.exec(doc.slice(start));
  if (start === -1 || !match?.[1]) throw new Error('docs/webhooks.md has no example receiver');
  return match[1];
}

for (const { dialect, skip } of await dialects()) {
  describe(`The documented example receiver (${dialect})`, { skip }, () => {
    let s: TestServer;
    let child: ChildProcess;
    let output = '';
    let dir: string;
    let channel: { id: string; secret: string };
    let url: string;
    before(async () => {
      s = await startTestServer(dialect, { workers: true, env: { WORKER_POLL_MS: '20' } });
      channel = await channelWithWebhook(s, 'https://example.com/later');
      dir = mkdtempSync(join(tmpdir(), 'parley-example-'));
      writeFileSync(join(dir, 'receiver.mjs'), exampleReceiver());
      child = spawn(process.execPath, [join(dir, 'receiver.mjs')], {
        env: { PATH: process.env.PATH ?? '', PARLEY_WEBHOOK_SECRET: channel.secret, PORT: '0' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const port = await eventually(async () => /listening on (\d+)/.exec(output)?.[1], 10_000, 'the example receiver listening');
      url = `http://127.0.0.1:${port}/parley-events`;
      await s.api.patch(`/v1/channels/${channel.id}`, { webhook: { url } });
    });
    after(async () => {
      child?.kill();
      await s?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test('accepts a real delivery, verifying both signatures', async () => {
      const event = await appendEvent(s, channel.id, { note: 'žluťoučký kůň' });
      await eventually(async () => (output.includes(`${event.eventId} message_echo`) ? true : undefined), 5000, 'the event logged by the example');
      assert.match(output, /"note":"žluťoučký kůň"/);
      const d = await eventually(async () => {
        const x = await deliveryOf(s, channel.id, event.deliveryId!);
        return x.status === 'delivered' ? x : undefined;
      });
      assert.equal(d.attempts[0].status_code, 200);

      // A redelivery is a duplicate to the example: answered 200, not handled twice.
      await s.api.post(`/v1/channels/${channel.id}/webhook/deliveries/${event.deliveryId}/redeliver`);
      await eventually(async () => ((await deliveryOf(s, channel.id, event.deliveryId!)).attempts.length === 2 ? true : undefined));
      await expectQuiet(50, 'the redelivered duplicate is not handled a second time');
      assert.equal(output.split(`${event.eventId} message_echo`).length - 1, 1);
    });

    test('refuses a body whose signature does not match', async () => {
      const body = JSON.stringify({ event: 'message_echo', timestamp: new Date().toISOString(), data: {} });
      const forged = await fetch(url, {
        method: 'POST',
        body,
        headers: { 'x-hub-signature': 'sha1=00', 'x-hub-signature-256': 'sha256=00', 'x-parley-event-id': '1' },
      });
      assert.equal(forged.status, 401);
      const unsigned = await fetch(url, { method: 'POST', body });
      assert.equal(unsigned.status, 401);
    });
  });
}
