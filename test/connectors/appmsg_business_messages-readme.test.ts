import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runReadmeBlock } from '../helpers/readme.js';

// The README's "A business message to a phone number", run as written with bash against
// `npm run sandbox` (moved to free ports with SANDBOX_PORT_BASE, which the server is given too) and
// the server as `npm start` runs it (from the sources). Only the ports and the token are replaced.

test("README's business message works as written: the channel's TTL given to the platform, the message taken once under the sender id as its template, delivered", async (t) => {
  const { stdout, standInUrl: standIn } = await runReadmeBlock(t, 'business-send', 6);
  const message = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    id: string;
    status: string;
    delivered: string | null;
    contact: { phone_number: string };
  };
  assert.equal(message.status, 'delivered', stdout);
  assert.notEqual(message.delivered, null);
  assert.equal(message.contact.phone_number, '+420601123456');

  // The stand-in took it once, under the sender id, with our id as seq and the channel's TTL.
  const taken = (await (await fetch(`${standIn}/_sandbox/messages?service_id=1234`)).json()) as {
    messages: Array<{ seq: number; dest: string; ttl: number; type: number; body: any }>;
  };
  assert.equal(taken.messages.length, 1);
  assert.equal(String(taken.messages[0]!.seq), message.id);
  assert.equal(taken.messages[0]!.dest, '420601123456');
  assert.equal(taken.messages[0]!.type, 1702, 'a template: plain text (206) is closed to the channel');
  assert.deepEqual(
    [taken.messages[0]!.body.templateId, taken.messages[0]!.body.templateLang, taken.messages[0]!.body.templateParams],
    ['order_shipped', 'en', { order: '1042' }],
  );
  assert.ok(taken.messages[0]!.ttl > 1150 && taken.messages[0]!.ttl <= 1200, `the channel's PT20M less what passed: ${taken.messages[0]!.ttl}`);
});
