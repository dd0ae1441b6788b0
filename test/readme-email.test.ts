import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runReadmeBlock } from './helpers/readme.js';

// The README's "An e-mail conversation, threaded", run as written with bash against `npm run
// sandbox` (moved to free ports with SANDBOX_PORT_BASE, which the server is given too) and the
// server as `npm start` runs it (from the sources). Only the ports and the token are replaced.

test("README's e-mail conversation works as written: the route registered, the answer forwarded and stripped, the reply threaded", async (t) => {
  const { stdout, standInUrl: mpUrl, port } = await runReadmeBlock(t, 'email-send', 5);
  const lines = stdout.trim().split('\n');
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
