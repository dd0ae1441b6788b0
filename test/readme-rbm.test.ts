import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runReadmeBlock } from './helpers/readme.js';

// The README's "An rbm channel from creation to a delivered message", run as written with bash
// against `npm run sandbox` (moved to free ports with SANDBOX_PORT_BASE, which the server is given
// too) and the server as `npm start` runs it (from the sources). Only the ports and the token are
// replaced.

test("README's rbm channel works as written: the agent's state read from the platform, the message at the stand-in once, delivered", async (t) => {
  const { stdout, standInUrl: rbmUrl } = await runReadmeBlock(t, 'rbm-send', 4);
  const lines = stdout.trim().split('\n');
  assert.equal(lines[0], 'launched', `the channel shows the agent's state:\n${stdout}`);
  const message = JSON.parse(lines.at(-1)!) as { id: string; status: string; delivered: string | null; contact: { phone_number: string } };
  assert.equal(message.status, 'delivered', stdout);
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
