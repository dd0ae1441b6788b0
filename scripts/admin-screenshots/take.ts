/**
 * Screenshots of every page of the administration app for docs/admin.md, taken in Debian's
 * Chromium on the seeded account (seed.ts). Each shot waits for what the page shows, not for time.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureAdminAppBuilt, openAdminPage } from '../../test/helpers/admin-browser.js';
import { launchChromium } from '../../test/browser/helpers/browser.js';
import { seedAccount } from './seed.js';

export async function takeAdminScreenshots(outDir: string): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  await ensureAdminAppBuilt();
  const seeded = await seedAccount();
  const browser = await launchChromium();
  const written: string[] = [];
  const viewport = { width: 1280, height: 860 };
  try {
    const shot = async (page: Page, name: string, fullPage = true) => {
      // Polling pages keep the network busy now and then; a short quiet moment is enough.
      await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
      // No focus ring left from the last click in the picture.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      const path = join(outDir, `${name}.png`);
      if (fullPage) {
        // A window as tall as the page: sticky bars stay where they belong instead of over the middle.
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, Math.min(height, 4000)) });
      }
      await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
      await page.setViewportSize(viewport);
      written.push(path);
      console.log(`  ${path}`);
    };

    const visitor = await openAdminPage(browser, seeded.origin, { viewport });
    await visitor.goto('/admin/sign-in');
    await visitor.page.getByLabel('E-mail').fill(seeded.owner.email);
    await shot(visitor.page, 'sign-in', false);
    await visitor.close();

    const newcomer = await openAdminPage(browser, seeded.origin, { viewport });
    await newcomer.goto(new URL(seeded.setupLink).pathname + new URL(seeded.setupLink).search);
    await newcomer.page.getByRole('heading', { name: 'Set your password' }).waitFor();
    await shot(newcomer.page, 'setup', false);
    await newcomer.close();

    const owner = await openAdminPage(browser, seeded.origin, { user: { ...seeded.owner, id: 0, role: 'owner', accountId: 0 }, viewport });
    const p = owner.page;
    const { channels } = seeded;

    await owner.goto('/admin/');
    await p.getByRole('region', { name: 'All channels' }).waitFor();
    await shot(p, 'overview');

    await owner.goto('/admin/channels');
    await p.getByRole('row', { name: /Receipts e-mail/ }).waitFor();
    await shot(p, 'channels');

    await owner.goto('/admin/channels/new?type=mobile');
    await p.getByLabel('Name', { exact: true }).fill('Table reservations SMS');
    await p.getByLabel('Sender id', { exact: true }).fill('+420601000124');
    await p.getByLabel('Provider access token', { exact: true }).fill('live_typo_in_the_key');
    await p.getByLabel('Signing key', { exact: true }).fill('cornercafe-signing-key');
    await p.getByRole('button', { name: 'Create channel' }).click();
    await p.locator('.field-error').filter({ hasText: /./ }).first().waitFor();
    await shot(p, 'channel-create');

    await owner.goto(`/admin/channels/${channels.sms}`);
    await p.getByText(/\/inbound\/\d+\/receive$/).waitFor();
    await shot(p, 'channel-details');

    await owner.goto(`/admin/channels/${channels.rbm}`);
    await p.getByRole('region', { name: 'RCS agent' }).waitFor();
    await shot(p, 'channel-rbm');

    await owner.goto(`/admin/channels/${channels.page}`);
    await p.getByRole('button', { name: 'Delete channel' }).click();
    await p
      .getByRole('alertdialog')
      .getByText(/its \d+ contacts/)
      .waitFor();
    await shot(p, 'channel-delete', false);
    await p.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click();

    // The channel tabs.
    for (const [tab, channel, name] of [
      ['webhook', channels.sms, 'channel-webhook'],
      ['settings', channels.page, 'channel-settings'],
      ['settings', channels.site, 'channel-settings-web-chat'],
      ['conversations', channels.page, 'channel-conversations'],
      ['trial', channels.sms, 'channel-trial'],
    ] as const) {
      await owner.goto(`/admin/channels/${channel}/${tab}`);
      await p.locator('.tab-panel').waitFor();
      if (tab === 'conversations') {
        // Open the newest conversation.
        const first = p.locator('.tab-panel').getByRole('link').first();
        await first.click().catch(() => undefined);
        const latest = p.getByRole('list', { name: 'Messages' }).getByText('Which pick-up time suits you?');
        await latest.waitFor();
        // The conversation scrolls inside its own box: a picture of the window, the latest message in it.
        await latest.scrollIntoViewIfNeeded();
        await shot(p, name, false);
        continue;
      }
      if (tab === 'webhook') {
        // The log of the hours the order system was down.
        await p.getByRole('button', { name: /Status/ }).click();
        await p.getByRole('option', { name: 'failed', exact: true }).click();
        await p.locator('.tab-panel').getByText('503').first().waitFor();
      }
      // The trial's contact list runs long: the window's worth shows what the tab is.
      await shot(p, name, tab !== 'trial');
    }

    // The web chat's NLP tab, its model trained, a phrase tried.
    await owner.goto(`/admin/channels/${channels.site}/nlp`);
    await p.locator('.tab-panel').getByText('Ready', { exact: true }).first().waitFor({ timeout: 60_000 });
    await p.getByRole('textbox', { name: 'Phrase', exact: true }).fill('¿Abrís mañana por la mañana?');
    await p.getByRole('button', { name: 'Classify' }).click();
    await p.getByRole('list', { name: 'Intents, most likely first' }).waitFor();
    await shot(p, 'channel-nlp');

    await owner.goto('/admin/api-settings');
    await p.getByRole('row', { name: /Analytics export/ }).waitFor();
    await shot(p, 'api-settings');
    await p.getByRole('button', { name: 'Create token' }).click();
    await p.getByRole('dialog').getByLabel('Name').fill('Loyalty app backend');
    await p.getByRole('dialog').getByRole('button', { name: 'Create token' }).click();
    await p.getByRole('dialog', { name: 'Your new token' }).waitFor();
    await shot(p, 'api-settings-new-token', false);
    await p.getByRole('dialog').getByRole('button', { name: 'Done' }).click();

    await owner.goto('/admin/users');
    await p.getByRole('row', { name: /new\.barista/ }).waitFor();
    await shot(p, 'users');
    // A page that logged errors or broke the CSP would make misleading pictures.
    await owner.assertNoProblems();
    await owner.close();
  } finally {
    await browser.close();
    await seeded.close();
  }
  return written;
}
