/**
 * The set-up every administration app browser suite shares, as hooks of the suite it is called
 * in: the service started (with the test password cost), its users made (an owner, and a member
 * when asked), the app built and Chromium started; all closed after the suite. Pages open on the
 * service's origin, signed in as the user given.
 *
 *   describe('...', () => {
 *     const admin = adminSuite(dialect, { server: { workers: true }, users: ['owner', 'member'] });
 *     test('...', async () => {
 *       const a = await admin.open(admin.owner);
 *       await a.goto('/admin/channels');
 *     });
 *   });
 */
import { after, before } from 'node:test';
import type { Dialect } from './databases.js';
import { startTestServer, type TestServer, type TestServerOptions } from './runtime.js';
import { createAdminUser, startAdminBrowser, TEST_PASSWORD_ENV, type AdminBrowser, type AdminPage, type AdminUserFixture } from './admin-browser.js';

/** What a suite runs against: the service and how to close it (with whatever was started beside it). */
export interface AdminService {
  s: TestServer;
  close(): Promise<void>;
}

export interface AdminSuiteOptions<T extends AdminService> {
  /** Settings of the service, beside the test password cost; a function when they are known only once earlier hooks ran (a stand-in's URL). */
  env?: Record<string, string> | (() => Record<string, string>);
  /** Options of startTestServer other than its settings (workers, plan). */
  server?: Omit<TestServerOptions, 'env'>;
  /** Starts something else than startTestServer (a harness with stand-ins), with the settings above. */
  start?: (env: Record<string, string>) => Promise<T>;
  /** The users made before the suite: the owner by default. */
  users?: ReadonlyArray<'owner' | 'member'>;
}

export interface AdminSuite<T extends AdminService> {
  /** What `start` made (the harness), or the service wrapped. */
  readonly service: T;
  readonly s: TestServer;
  readonly app: AdminBrowser;
  /** owner@example.com, owner of the service's first account. */
  readonly owner: AdminUserFixture;
  /** member@example.com, a member of that account (made when `users` names it). */
  readonly member: AdminUserFixture;
  /** A page of the app, signed in as `user` (signed out without one). */
  open(user?: AdminUserFixture, viewport?: { width: number; height: number }): Promise<AdminPage>;
}

export function adminSuite<T extends AdminService = AdminService>(dialect: Dialect, options: AdminSuiteOptions<T> = {}): AdminSuite<T> {
  let service: T | undefined;
  let app: AdminBrowser | undefined;
  const users = new Map<string, AdminUserFixture>();
  const ready = <V>(value: V | undefined, what: string): V => {
    if (value === undefined) throw new Error(`adminSuite: ${what} is used before the suite's before hook ran`);
    return value;
  };

  before(async () => {
    const env = { ...TEST_PASSWORD_ENV, ...(typeof options.env === 'function' ? options.env() : options.env) };
    if (options.start) service = await options.start(env);
    else {
      const s = await startTestServer(dialect, { ...options.server, env });
      service = { s, close: () => s.close() } as T;
    }
    const { s } = service;
    for (const role of options.users ?? ['owner']) users.set(role, await createAdminUser(s, s.accountId, `${role}@example.com`, role));
    app = await startAdminBrowser();
  });
  after(async () => {
    await app?.close();
    await service?.close();
  });

  return {
    get service() {
      return ready(service, 'the service');
    },
    get s() {
      return ready(service, 'the service').s;
    },
    get app() {
      return ready(app, 'the browser');
    },
    get owner() {
      return ready(users.get('owner'), 'the owner');
    },
    get member() {
      return ready(users.get('member'), 'the member');
    },
    open(user, viewport) {
      return ready(app, 'the browser').open(ready(service, 'the service').s.origin, user, viewport);
    },
  };
}
