/**
 * The administration app in Debian's Chromium: the app built (when older than its sources), the
 * service started in this process, an owner and a member signed in through the app, and every
 * page watched for console errors, failed requests and Content-Security-Policy violations, which
 * fail the test unless the test names the error answer it provokes.
 * `checkAccessibility` runs axe-core in the page and fails on serious or critical violations.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminAppStale, buildAdminApp, ADMIN_OUT } from '../../scripts/build-admin-app.mjs';
import { chromiumMissing, launchChromium } from '../browser/helpers/browser.js';
import type { TestServer } from './runtime.js';

export { chromiumMissing };

/** Passwords are hashed with this scrypt cost in tests (the service's default takes ~100 ms a hash). */
export const TEST_PASSWORD_ENV = { ADMIN_PASSWORD_COST: '10' } as const;

const LOCK = join(ADMIN_OUT, '..', '.admin-build.lock');

/**
 * Builds the app once when its build is missing or older than its sources. Test files run two
 * at a time, so one builds while the other waits on a lock folder (bounded: a stale lock left by
 * a killed run is taken over after two minutes).
 */
export async function ensureAdminAppBuilt(): Promise<void> {
  if (!adminAppStale()) return;
  mkdirSync(join(ADMIN_OUT, '..'), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      let age = 0;
      try {
        age = Date.now() - statSync(LOCK).mtimeMs;
      } catch {
        continue;
      }
      if (age > 120_000 || Date.now() > deadline) {
        rmdirSync(LOCK);
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (adminAppStale()) await buildAdminApp({ logLevel: 'error' });
  } finally {
    rmdirSync(LOCK);
  }
}

export interface AdminUserFixture {
  id: number;
  email: string;
  password: string;
  role: 'owner' | 'member';
  accountId: number;
}

/** A user of the account with a password of their own (set through a setup link, as a new user does). */
export async function createAdminUser(
  s: TestServer,
  accountId: number,
  email: string,
  role: 'owner' | 'member',
  password = 'correct horse battery staple',
): Promise<AdminUserFixture> {
  const { users } = s.runtime.services;
  const made = await users.createUser({ accountId, email, role });
  assert.ok(made.setupLink, 'a user made without a password gets a setup link');
  const token = new URL(made.setupLink).searchParams.get('token');
  assert.ok(token);
  await users.setUp(token, password);
  return { id: made.user.id, email, password, role, accountId };
}

/** What a page reported that a user should never see: console errors, failed requests, uncaught exceptions, CSP violations. */
export interface PageProblems {
  console: Array<{ text: string; url: string }>;
  /** Answers of 400 and above, and requests that got no answer (not those the app cancelled). */
  requests: Array<{ status: number | null; method: string; path: string; text: string }>;
  exceptions: string[];
  csp: string[];
}

/** An error answer a test provokes on purpose (a refused form, a 403 told in words): its status and path. */
export interface ExpectedAnswer {
  status: number;
  /** The request's path (without the query), or a pattern for it. */
  path: string | RegExp;
}

export interface AdminPage {
  page: Page;
  context: BrowserContext;
  problems: PageProblems;
  /** Opens an app path (e.g. '/admin/channels') and waits for the app to render it. */
  goto(path: string): Promise<void>;
  /**
   * Fails when the page logged an error, had a request fail, threw, or broke the CSP since it
   * opened (or since the last call). Error answers the test provoked on purpose are named in
   * `expected` (each must have happened), and so is the browser's console note of each.
   */
  assertNoProblems(expected?: ExpectedAnswer[]): Promise<void>;
  close(): Promise<void>;
}

const matches = (expected: ExpectedAnswer, status: number | null, path: string) =>
  expected.status === status && (typeof expected.path === 'string' ? expected.path === path : expected.path.test(path));

/** The browser's console note of an error answer: its status and the path of its URL. */
function failedLoad(text: string, url: string): { status: number; path: string } | null {
  const m = /^Failed to load resource: the server responded with a status of (\d{3})/.exec(text);
  if (!m) return null;
  try {
    return { status: Number(m[1]), path: new URL(url).pathname };
  } catch {
    return null;
  }
}

/** Collects the CSP violations the page sees, from before its first script runs. */
const CSP_LISTENER = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + (e.sourceFile || '') + ':' + e.lineNumber);
  });
`;

export async function openAdminPage(
  browser: Browser,
  origin: string,
  options: { user?: AdminUserFixture; viewport?: { width: number; height: number } } = {},
): Promise<AdminPage> {
  const context = await browser.newContext({ baseURL: origin, viewport: options.viewport ?? { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  // Pages answer within a second here; a missing element should fail the test well before node:test's own limits.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: PageProblems = { console: [], requests: [], exceptions: [], csp: [] };
  await page.addInitScript(CSP_LISTENER);
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (/Content.Security.Policy/i.test(text)) problems.csp.push(text);
    else problems.console.push({ text, url: message.location().url ?? '' });
  });
  page.on('response', (response) => {
    if (response.status() < 400) return;
    const url = new URL(response.url());
    const method = response.request().method();
    problems.requests.push({ status: response.status(), method, path: url.pathname, text: `${response.status()} ${method} ${url.pathname}${url.search}` });
  });
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText ?? '';
    // The app cancels what it no longer needs (a poll of a page left): not a failure.
    if (error === 'net::ERR_ABORTED') return;
    const url = new URL(request.url());
    problems.requests.push({
      status: null,
      method: request.method(),
      path: url.pathname,
      text: `${request.method()} ${url.pathname}${url.search} failed: ${error}`,
    });
  });
  page.on('pageerror', (error) => problems.exceptions.push(String(error.stack ?? error)));

  if (options.user) {
    // Signing in through the sign-in page is sign-in.test.ts's subject; other tests sign in by the same API call the page makes.
    const res = await context.request.post('/admin/api/session', { data: { email: options.user.email, password: options.user.password } });
    assert.equal(res.status(), 200, await res.text());
  }

  const collectCsp = async () => {
    if (page.isClosed()) return;
    const found = await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations?.splice(0) ?? []).catch(() => []);
    problems.csp.push(...found);
  };

  return {
    page,
    context,
    problems,
    async goto(path) {
      await collectCsp();
      await page.goto(new URL(path, origin).href);
      await page.locator('#root > *').first().waitFor();
    },
    async assertNoProblems(expected = []) {
      await collectCsp();
      const all = { ...problems };
      problems.console = [];
      problems.requests = [];
      problems.exceptions = [];
      problems.csp = [];
      const unseen = expected.filter((e) => !all.requests.some((r) => matches(e, r.status, r.path)));
      const requests = all.requests.filter((r) => !expected.some((e) => matches(e, r.status, r.path)));
      const consoleErrors = all.console.filter(({ text, url }) => {
        const load = failedLoad(text, url);
        return !(load && expected.some((e) => matches(e, load.status, load.path)));
      });
      const found = [
        ...consoleErrors.map((m) => `console: ${m.text}${m.url ? ` (${m.url})` : ''}`),
        ...requests.map((r) => `request: ${r.text}`),
        ...all.exceptions.map((m) => `exception: ${m}`),
        ...all.csp.map((m) => `CSP: ${m}`),
        ...unseen.map((e) => `expected but not seen: ${e.status} ${String(e.path)}`),
      ];
      assert.deepEqual(found, [], 'the page reported problems');
    },
    async close() {
      await context.close();
    },
  };
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;

/** One axe-core finding, as the assertion message shows it. */
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; html: string; failureSummary?: string }[];
}

/**
 * Runs axe-core (WCAG 2.x A and AA rules and best practices) on the page as it is now and fails
 * on serious or critical violations. axe is evaluated through the browser's debugging protocol,
 * which the page's CSP does not govern, so the app's policy stays as strict as served.
 */
export async function checkAccessibility(page: Page, what: string): Promise<void> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  if (!loaded) await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations;
  })) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = serious.map(
    (v) =>
      `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  at ${JSON.stringify(n.target)} ${n.html.slice(0, 300)}\n  ${n.failureSummary ?? ''}`).join('\n')}`,
  );
  assert.deepEqual(report, [], `axe-core found serious accessibility violations on ${what}`);
}

/** Everything an admin browser test needs: the app built, a browser, and a way to open signed-in pages. */
export interface AdminBrowser {
  browser: Browser;
  open(origin: string, user?: AdminUserFixture, viewport?: { width: number; height: number }): Promise<AdminPage>;
  close(): Promise<void>;
}

export async function startAdminBrowser(): Promise<AdminBrowser> {
  await ensureAdminAppBuilt();
  const browser = await launchChromium();
  const pages: AdminPage[] = [];
  return {
    browser,
    async open(origin, user, viewport) {
      const page = await openAdminPage(browser, origin, { user, viewport });
      pages.push(page);
      return page;
    },
    async close() {
      await Promise.allSettled(pages.map((p) => p.close()));
      await browser.close();
    },
  };
}
