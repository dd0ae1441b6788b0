import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { chromiumMissing } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';
import { eventually } from '../helpers/waits.js';

// A failover chain (docs/failover.md) in the conversation view: the first message of a chain
// opens its steps, with the state of each and why the chain moved on. Two mobile channels in test
// mode (stored and echoed, never sent, never delivered): the first step is not delivered in time.

const browserSkip = chromiumMissing();

for (const { dialect, skip, test } of await dialects()) {
  describe(`Admin app: a failover chain in the conversation view in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    const admin = adminSuite(dialect, { server: { workers: true } });

    async function testChannel(name: string): Promise<string> {
      const made = await admin.s.api.post('/v1/channels', {
        type: 'mobile',
        name,
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: '+420601000777', access_token: 'live_unused', signing_key: 'unused' },
      });
      assert.equal(made.status, 201, made.text);
      return made.body.id as string;
    }

    test("the chain's steps open from its message", async () => {
      const [first, second] = [await testChannel('SMS A'), await testChannel('SMS B')];
      const sent = await admin.s.api.post('/v1/messages', {
        channel: { id: first },
        contact: { phone_number: '+420601555111' },
        content: { type: 'text', payload: 'Your table is ready.' },
        fallbacks: [{ channel: { id: second }, when: 'not_delivered', within: 1 }],
      });
      assert.equal(sent.status, 201, sent.text);
      await eventually(async () => ((await admin.s.api.get(`/v1/messages/${sent.body.id}`)).body.failover.steps[1].message_id ? true : undefined));

      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${first}/conversations`);
      await a.page.getByTestId('contact').first().click();
      const message = a.page.getByRole('list', { name: 'Messages' }).getByTestId('message').filter({ hasText: 'Your table is ready.' });
      await message.waitFor();
      await message.getByText('Failover step 1').click();
      const steps = message.getByTestId('failover-step');
      await steps.nth(1).waitFor();
      assert.equal(await steps.count(), 2);
      assert.match((await steps.nth(0).textContent()) ?? '', /moved on: not delivered in time/);
      assert.equal(await steps.nth(1).getAttribute('data-state'), 'sent');
      assert.match((await message.getByTestId('failover-outcome').textContent()) ?? '', /Outcome: sent/);
    });
  });
}
