import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/waits.js';
import { startHarness, type ConnectedPage, type Harness } from '../connectors/helpers/harness.js';
import { checkAccessibility, chromiumMissing } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';

// The overview after a day's traffic made through the real paths: a social network page whose
// user writes twice and gets an answer, an SMS channel in test mode whose webhook receiver
// answers 500 until every delivery has failed. Each channel's card shows its sent, received and
// failed counts and a chart with their summary; the totals add up; another account's channel and
// its traffic are not there.

const browserSkip = chromiumMissing();

for (const { dialect, skip, test } of await dialects({ postgresSmoke: ['each channel shows'] })) {
  describe(`Admin app overview in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    let h: Harness;
    let failing: Receiver;
    let page: ConnectedPage;
    let smsId = '';

    // One retry a fifth of a second after the first try: a delivery to a receiver that answers 500 fails quickly.
    const admin = adminSuite(dialect, {
      env: { WEBHOOK_RETRY_SCHEDULE: '0.2' },
      start: async (env) => (h = await startHarness(dialect, env)),
      users: ['member'],
    });
    before(async () => {
      failing = await Receiver.start();
      failing.answer = () => ({ status: 500, body: 'receiver down' });

      page = await h.connectPage('Corner Café');
      const user = await h.snSandbox(`/pages/${page.pageId}/users`, { first_name: 'Jana', last_name: 'Nováková' });
      assert.equal(user.status, 201, user.text);
      for (const text of ['Are you open today?', 'And tomorrow?']) {
        const wrote = await h.snSandbox(`/pages/${page.pageId}/users/${user.body.user.psid}/messages`, { text });
        assert.equal(wrote.status, 200, wrote.text);
      }
      const received = await page.hook.waitFor('message_received', (e) => e.data.content.payload === 'And tomorrow?');
      const reply = await h.s.api.post('/v1/messages', {
        channel: { id: page.channelId },
        contact: { id: received.data.contact.id },
        content: { type: 'text', payload: 'Open 8 to 18 both days.' },
      });
      assert.equal(reply.status, 201, reply.text);

      const sms = await h.s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'Promo SMS',
        mode: 'test',
        webhook: { url: failing.url('/hook') },
        provider: { type: 'smsprovider', sender_id: 'CAFE', access_token: 'key', signing_key: 'sign' },
      });
      assert.equal(sms.status, 201, sms.text);
      smsId = sms.body.id;
      for (const number of ['+420601000001', '+420601000002', '+420601000003']) {
        const sent = await h.s.api.post('/v1/messages', {
          channel: { id: smsId },
          contact: { phone_number: number },
          content: { type: 'text', payload: 'Coffee 2 for 1 today' },
        });
        assert.equal(sent.status, 201, sent.text);
      }
      await eventually(
        async () => {
          const res = await h.s.api.get(`/v1/channels/${smsId}/webhook/deliveries?status=failed&max=100`);
          return res.body.length === 3 ? true : undefined;
        },
        20_000,
        'three failed deliveries',
      );

      const other = await h.s.newAccount();
      const theirs = await other.api.post('/v1/channels', {
        type: 'mobile',
        name: 'Their SMS',
        mode: 'test',
        provider: { type: 'smsprovider', sender_id: 'THEM', access_token: 'key', signing_key: 'sign' },
      });
      assert.equal(theirs.status, 201, theirs.text);
      const theirSend = await other.api.post('/v1/messages', {
        channel: { id: theirs.body.id },
        contact: { phone_number: '+420601000009' },
        content: { type: 'text', payload: 'x' },
      });
      assert.equal(theirSend.status, 201, theirSend.text);
    });
    after(async () => {
      await failing?.close();
    });

    const numbers = async (scope: import('playwright-core').Locator) => {
      const read = async (label: string) =>
        Number(((await scope.locator('.stat', { hasText: label }).locator('.stat-value').textContent()) ?? '').replace(/\D/g, ''));
      return { sent: await read('sent'), received: await read('received'), failed: await read('deliveries failed') };
    };

    test('each channel shows its sent, received and failed deliveries of the last day, with a chart; the totals add up', async () => {
      const a = await admin.open(admin.member);
      await a.goto('/admin/');
      const cards = a.page.getByRole('list', { name: 'Channels' });
      const cafe = cards.getByRole('listitem').filter({ has: a.page.getByRole('heading', { name: 'Corner Café channel' }) });
      const promo = cards.getByRole('listitem').filter({ has: a.page.getByRole('heading', { name: 'Promo SMS' }) });
      await promo.waitFor();
      assert.deepEqual(await numbers(cafe), { sent: 1, received: 2, failed: 0 });
      assert.deepEqual(await numbers(promo), { sent: 3, received: 0, failed: 3 });
      assert.deepEqual(await numbers(a.page.getByRole('region', { name: 'All channels' })), { sent: 4, received: 2, failed: 3 });

      // The charts say what they show, for those who do not see them.
      const chart = promo.getByRole('img');
      assert.match(
        (await chart.getAttribute('aria-label')) ?? '',
        /^Promo SMS: 3 sent, 0 received, 3 failed deliveries in 24 hours; busiest hour \d\d:00 with \d+ messages\.$/,
      );
      assert.equal(await promo.locator('svg .chart-sent').count(), 24);
      // The failed deliveries are one click away.
      await promo.getByRole('link', { name: 'See the failed deliveries' }).waitFor();
      assert.equal(await promo.getByRole('link', { name: 'See the failed deliveries' }).getAttribute('href'), `/admin/channels/${smsId}/webhook`);
      assert.equal(await cafe.getByRole('link', { name: 'See the failed deliveries' }).count(), 0);

      assert.equal(await a.page.getByText('Their SMS').count(), 0);
      await checkAccessibility(a.page, 'the overview');
      await a.assertNoProblems();
    });

    test('a new message shows after Refresh', async () => {
      const a = await admin.open(admin.member);
      await a.goto('/admin/');
      const promo = a.page
        .getByRole('list', { name: 'Channels' })
        .getByRole('listitem')
        .filter({ has: a.page.getByRole('heading', { name: 'Promo SMS' }) });
      await promo.waitFor();
      assert.equal((await numbers(promo)).sent, 3);
      const sent = await h.s.api.post('/v1/messages', {
        channel: { id: smsId },
        contact: { phone_number: '+420601000004' },
        content: { type: 'text', payload: 'Last call' },
      });
      assert.equal(sent.status, 201, sent.text);
      await a.page.getByRole('button', { name: 'Refresh' }).click();
      await eventually(async () => ((await numbers(promo)).sent === 4 ? true : undefined), 5_000, 'the fourth message on the card');
      await a.assertNoProblems();
    });
  });
}
