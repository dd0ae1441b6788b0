import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { dialects } from '../helpers/databases.js';
import { Receiver } from '../helpers/receiver.js';
import { appendEvent } from '../helpers/factories.js';
import { checkAccessibility, chromiumMissing, type AdminPage } from '../helpers/admin-browser.js';
import { adminSuite } from '../helpers/admin-suite.js';

// The Webhook tab as its user works it: a webhook set (a bad URL refused next to its field), a
// receiver that fails, the failed delivery with each attempt in the log, redelivered once the
// receiver works; a test event; the secret revealed, copied and rotated; redeliver all failed;
// the log filtered by status and paged.

const browserSkip = chromiumMissing();
const FAILING = 'a failing receiver: the failed delivery shows every attempt; redelivered, it is delivered';

const sign = (secret: string, raw: Buffer) => `sha1=${createHmac('sha1', secret).update(raw).digest('hex')}`;

for (const { dialect, skip, test } of await dialects({ postgresSmoke: [FAILING] })) {
  describe(`Admin app: the channel Webhook tab in Chromium (${dialect})`, { skip: skip || browserSkip }, () => {
    // Two quick retries, so a delivery fails within a second.
    const admin = adminSuite(dialect, { server: { workers: true }, env: { WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' } });
    let receiver: Receiver;
    before(async () => {
      receiver = await Receiver.start();
    });
    after(async () => {
      await receiver?.close();
    });

    async function webChat(name: string): Promise<string> {
      const res = await admin.s.api.post('/v1/channels', { type: 'service_chat', name });
      assert.equal(res.status, 201, res.text);
      return res.body.id;
    }

    const deliveryItems = (a: AdminPage) => a.page.getByTestId('delivery');
    const fieldError = (a: AdminPage, label: string) =>
      a.page
        .locator('.field')
        .filter({ has: a.page.getByLabel(label) })
        .locator('.field-error');

    test(FAILING, async () => {
      const id = await webChat('Shop chat');
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${id}/webhook`);
      await a.page.getByText('No deliveries yet.').waitFor();

      // The API's 422 shows next to the URL field.
      await a.page.getByLabel('Webhook URL').fill('ftp://example.com/hook');
      await a.page.getByRole('button', { name: 'Set webhook' }).click();
      await fieldError(a, 'Webhook URL').getByText("Property 'webhook.url' must be an absolute http or https URL.").waitFor();
      assert.equal((await admin.s.api.get(`/v1/channels/${id}`)).body.webhook, null, 'nothing was saved');

      receiver.answer = () => ({ status: 500, body: 'receiver is down' });
      await a.page.getByLabel('Webhook URL').fill(receiver.url('/events'));
      await a.page.getByRole('button', { name: 'Set webhook' }).click();
      await a.page.getByText('Webhook saved.').waitFor();
      const channel = (await admin.s.api.get(`/v1/channels/${id}`)).body;
      assert.equal(channel.webhook.url, receiver.url('/events'));
      assert.equal(channel.webhook.ssl_verification, true);

      // An event of the channel (as a sent message would make) fails at the receiver on every try.
      const calls = receiver.calls.length;
      await appendEvent(admin.s, id, { note: 'order 42' });
      const failed = deliveryItems(a).and(a.page.locator('[data-status=failed]'));
      await failed.waitFor();
      assert.equal(await deliveryItems(a).count(), 1);
      const rows = failed.locator('tbody tr');
      assert.equal(await rows.count(), 3, 'the first try and two retries');
      for (let i = 0; i < 3; i++) {
        const cells = rows.nth(i).locator('td');
        assert.equal(await cells.nth(1).textContent(), '500');
        assert.match((await cells.nth(2).textContent()) ?? '', /^\d+ ms$/);
        assert.equal(await cells.nth(3).textContent(), 'receiver is down');
        assert.ok(await cells.nth(0).locator('time').getAttribute('datetime'));
      }
      assert.match((await failed.textContent()) ?? '', /message_echo/);
      assert.equal(receiver.calls.length - calls, 3);

      // The receiver works again: redelivered, the same event arrives and the log says delivered.
      receiver.answer = () => ({ status: 200, body: 'thanks' });
      await failed.getByRole('button', { name: /^Redeliver message_echo delivery/ }).click();
      const delivered = deliveryItems(a).and(a.page.locator('[data-status=delivered]'));
      await delivered.waitFor();
      const last = delivered.locator('tbody tr').last().locator('td');
      assert.equal(await last.nth(1).textContent(), '200');
      assert.equal(await last.nth(3).textContent(), 'thanks');
      const sent = receiver.calls.slice(-1)[0]!;
      assert.equal(sent.headers['x-parley-event-id'], receiver.calls[calls]!.headers['x-parley-event-id'], 'the same event, by its id');
      assert.equal(sent.headers['x-hub-signature'], sign(channel.webhook.secret, sent.raw));
      assert.equal(sent.body.data.note, 'order 42');

      await checkAccessibility(a.page, 'the Webhook tab with its delivery log');
      await a.assertNoProblems([{ status: 422, path: /^\/admin\/api\/v1\/channels\/\d+$/ }]); // the URL refused at its field
    });

    test('a test event, the secret revealed, copied and rotated, and redeliver all failed', async () => {
      const id = await webChat('Rotating chat');
      receiver.answer = () => ({ status: 200, body: 'ok' });
      await admin.s.api.patch(`/v1/channels/${id}`, { webhook: { url: receiver.url('/rotating') } });
      const before = (await admin.s.api.get(`/v1/channels/${id}`)).body.webhook.secret as string;
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${id}/webhook`);

      // Hidden until revealed; copied without being shown.
      const secret = a.page.getByTestId('webhook-secret');
      assert.ok(!((await secret.textContent()) ?? '').includes(before));
      await a.page.getByRole('button', { name: 'Copy secret' }).click();
      await a.page.getByText('Copied').waitFor();
      assert.equal(await a.page.evaluate(() => navigator.clipboard.readText()), before);
      await a.page.getByRole('button', { name: 'Reveal secret' }).click();
      assert.equal(await secret.textContent(), before);

      // Rotating asks first, then the new secret is shown and signs the next event.
      await a.page.getByRole('button', { name: 'Rotate secret' }).click();
      const dialog = a.page.getByRole('alertdialog', { name: 'Rotate the signing secret?' });
      await dialog.getByText('rejects them until it has the new secret').waitFor();
      await dialog.getByRole('button', { name: 'Rotate' }).click();
      await a.page.getByText('A new secret is in use.').waitFor();
      const after = (await admin.s.api.get(`/v1/channels/${id}`)).body.webhook.secret as string;
      assert.notEqual(after, before);
      await a.page.getByTestId('webhook-secret').getByText(after).waitFor();

      const calls = receiver.calls.length;
      await a.page.getByRole('button', { name: 'Send test event' }).click();
      await a.page.getByText(/Test event queued \(delivery \d+\)/).waitFor();
      await deliveryItems(a).and(a.page.locator('[data-status=delivered]')).waitFor();
      const test = receiver.calls[calls]!;
      assert.equal(test.path, '/rotating');
      assert.equal(test.body.event, 'webhook_test');
      assert.deepEqual(test.body.data, { channel: { id, type: 'service_chat', name: 'Rotating chat' } }, 'the channel named as in every event');
      assert.equal(test.headers['x-hub-signature'], sign(after, test.raw), 'signed with the new secret');

      // Two failed deliveries, sent again by one button once the receiver is back.
      receiver.answer = () => ({ status: 503, body: 'maintenance' });
      await appendEvent(admin.s, id, { n: 1 });
      await appendEvent(admin.s, id, { n: 2 });
      await a.page.locator('[data-testid=delivery][data-status=failed]').nth(1).waitFor();
      receiver.answer = () => ({ status: 200, body: 'ok' });
      await a.page.getByRole('button', { name: 'Redeliver all failed' }).click();
      await a.page.getByRole('alertdialog').getByRole('button', { name: 'Redeliver' }).click();
      await a.page.getByText('2 failed deliveries are being sent again.').waitFor();
      await a.page.locator('[data-testid=delivery][data-status=delivered]').nth(2).waitFor();
      assert.equal(await a.page.locator('[data-testid=delivery][data-status=failed]').count(), 0);

      await checkAccessibility(a.page, 'the Webhook tab after rotating the secret');
      await a.assertNoProblems();
    });

    test('the log is filtered by status and paged, newest first', async () => {
      const id = await webChat('Busy chat');
      receiver.answer = (call) => (call.body?.data?.n === 0 ? { status: 500, body: 'no' } : { status: 200, body: 'ok' });
      await admin.s.api.patch(`/v1/channels/${id}`, { webhook: { url: receiver.url('/busy') } });
      for (let n = 0; n < 23; n++) await appendEvent(admin.s, id, { n });
      const a = await admin.open(admin.owner);
      await a.goto(`/admin/channels/${id}/webhook`);
      const pager = a.page.getByRole('navigation', { name: 'Delivery pages' });
      await pager.getByText('1–20 of 23').waitFor();
      assert.equal(await deliveryItems(a).count(), 20);
      await pager.getByRole('button', { name: 'Older' }).click();
      await pager.getByText('21–23 of 23').waitFor();
      assert.equal(await deliveryItems(a).count(), 3);

      // Only the failed one (n = 0) once every delivery has settled.
      await a.page.locator('[data-testid=delivery][data-status=failed]').or(a.page.getByText('No failed deliveries.')).first().waitFor();
      await a.page.getByRole('button', { name: /Status$/ }).click();
      await a.page.getByRole('option', { name: 'failed' }).click();
      // The older page shown before held the failed one too: wait for the filtered list itself (one page, no pager).
      await pager.waitFor({ state: 'detached' });
      await a.page.locator('[data-testid=delivery][data-status=failed]').waitFor();
      assert.equal(await deliveryItems(a).count(), 1);
      await a.page.getByRole('button', { name: /Status$/ }).click();
      await a.page.getByRole('option', { name: 'pending' }).click();
      await a.page.getByText('No pending deliveries.').waitFor();
      await a.assertNoProblems();
    });
  });
}
