import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runReadmeBlock } from './helpers/readme.js';

// The README's "An appmsg bot account: a subscriber, a keyboard and its tap", run as written with
// bash against `npm run sandbox` (moved to free ports with SANDBOX_PORT_BASE, which the server is
// given too) and the server as `npm start` runs it (from the sources). Only the ports and the token
// are replaced.

test("README's appmsg account works as written: the webhook registered, the keyboard at the platform, the tap back as a quick reply", async (t) => {
  const { stdout, standInUrl: amUrl, port } = await runReadmeBlock(t, 'appmsg-send', 3);
  const listed = JSON.parse(stdout.trim().split('\n').at(-1)!) as Array<{ direction: string; content: any }>;
  assert.equal(listed.length, 1, stdout);
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
