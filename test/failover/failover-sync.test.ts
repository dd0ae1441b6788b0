import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startHarness, type Harness } from '../connectors/helpers/harness.js';
import { chainWhen } from './stand-ins.js';

// A chain whose first step is a synchronous channel (socialnet_chat, sent while Send Message
// waits) and whose platform refuses it (docs/failover.md, Limits): the answer is 201 with the
// first step failed, not 502, and the chain moves on to the next step.
for (const { dialect, skip, test } of await dialects()) {
  describe(`failover from a synchronous channel the platform refuses (${dialect})`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(dialect);
    });
    after(async () => h?.close());

    test('201 with the first step failed; the SMS step starts', async () => {
      const page = await h.connectPage();
      const user = await h.snSandbox(`/pages/${page.pageId}/users`, { first_name: 'Jana', last_name: 'Novakova' });
      assert.equal(user.status, 201, user.text);
      const psid = user.body.user.psid as string;
      const said = await h.snSandbox(`/pages/${page.pageId}/users/${psid}/messages`, { text: 'hello' });
      assert.equal(said.body.webhook?.status, 200, said.text);
      const received = await page.hook.waitFor('message_received', (e) => e.data.content.payload === 'hello');
      const sms = await h.s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: '+420601000111', access_token: 'sms-token', signing_key: 'sms-signing' },
      });
      assert.equal(sms.status, 201, sms.text);

      // A retired tag without a successor: the platform refuses the first step.
      const sent = await h.s.api.post('/v1/messages', {
        channel: { id: page.channelId },
        contact: { id: received.data.contact.id },
        content: { type: 'text', payload: 'Your table is ready.' },
        metadata: { tag: 'game_event' },
        fallbacks: [{ channel: { id: sms.body.id }, when: 'failed', contact: { phone_number: '+420601123456' }, metadata: {} }],
      });
      assert.equal(sent.status, 201, sent.text);
      const first = sent.body.id as string;
      assert.equal(sent.body.failover.outcome, 'pending');
      assert.deepEqual(
        sent.body.failover.steps.map((s: any) => [s.step, s.state]),
        [
          [0, 'failed'],
          [1, 'waiting'],
        ],
      );
      const moved = await chainWhen(h.s, first, (c) => c.steps[1].message_id !== null, 'the SMS step started');
      assert.equal(moved.steps[0].moved_on, 'failed');
      assert.equal(moved.steps[1].channel.id, sms.body.id);
      const smsMessage = await h.s.api.get(`/v1/messages/${moved.steps[1].message_id}`);
      assert.equal(smsMessage.body.contact.phone_number, '+420601123456');
      assert.deepEqual(smsMessage.body.metadata, { failover: { message_id: first, step: 1 } });
    });
  });
}
