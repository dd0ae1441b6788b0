import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { chromiumMissing, launchChromium } from './helpers/browser.js';

const CSP_LISTENER = `
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')));
`;

/**
 * The API reference page shares its origin with the administration app: it renders under its
 * Content-Security-Policy, and a token pasted into it stays in the page's memory, never in the
 * origin's storage.
 */
describe('the API reference page in a browser', { skip: chromiumMissing() }, () => {
  let s: TestServer;
  let browser: Browser;
  before(async () => {
    s = await startTestServer('sqlite');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('renders under its CSP, and a pasted token is not kept in the storage of the origin', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.addInitScript(CSP_LISTENER);
    const res = await page.goto(`${s.origin}/v1/docs/`);
    assert.match(res?.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click();
    await page.locator('.auth-container input').first().fill(s.token);
    await page.locator('.auth-container button[type="submit"]').first().click();
    await page.locator('.auth-container h6', { hasText: 'Authorized' }).first().waitFor();
    const stored = await page.evaluate(() => JSON.stringify({ ...window.localStorage }) + JSON.stringify({ ...window.sessionStorage }) + document.cookie);
    assert.ok(!stored.includes(s.token), 'the token is in no storage of the origin');
    assert.ok(!stored.includes(s.token.slice(4)), 'not even in parts');
    const csp = await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
    assert.deepEqual(csp, [], 'no CSP violation');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
