import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserService, SignedIn } from '../../../domain/users/service.js';
import type { SessionService } from '../../../domain/users/sessions.js';
import { accountJson, userJson } from '../../../domain/users/views.js';
import type { Clock } from '../../../lib/clock.js';
import { ErrorBody } from '../../../schemas/common.js';
import { cookieValues, sessionCookie, sessionCookieName, type RequestOrigin } from '../../admin-guard.js';
import { adminSessionOf } from '../../context.js';
import type { RoutePlugin } from '../../route-group.js';
import { retryAfterHeader } from './retry-after.js';
import { ApiError } from '../../../lib/errors.js';
import { parseId } from '../../../lib/ids.js';
import { AccountChoiceView, PasswordChangeBody, SessionView, SetupBody, SignInBody } from './schemas.js';

export interface SessionRouteDeps {
  users: UserService;
  sessions: SessionService;
  origin: RequestOrigin;
  clock: Clock;
}

/**
 * Sign-in, the current session, sign-out, password change and the one-time setup link. Sign-in
 * and setup need no session (only a same-site Origin); the rest run behind the admin guard.
 */
export const sessionRoutes: RoutePlugin<SessionRouteDeps> = async (app, deps) => {
  app.addHook('onError', retryAfterHeader);
  const started = (request: FastifyRequest, reply: FastifyReply, done: SignedIn) => {
    const maxAge = (done.session.expiresAt - deps.clock.now()) / 1000;
    void reply.header('Set-Cookie', sessionCookie(done.session.id, maxAge, deps.origin.isHttps(request)));
    return { user: userJson(done.user), account: accountJson(done.account), csrf_token: done.session.csrfToken };
  };

  app.post(
    '/session',
    {
      config: { adminSession: 'none' },
      schema: {
        tags: ['Administration'],
        operationId: 'adminSignIn',
        summary: 'Sign in with e-mail and password: the session (its cookie set), or the accounts to choose from',
        body: SignInBody,
        'x-response': { 200: Type.Union([SessionView, AccountChoiceView]), 401: ErrorBody, 422: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
    },
    async (request, reply) => {
      const { email, password, account_id } = request.body;
      let accountId: number | undefined;
      if (account_id !== undefined) {
        const parsed = parseId(account_id);
        if (parsed === null) throw ApiError.invalid('account_id', account_id, 'The account id is not valid.');
        accountId = parsed;
      }
      const done = await deps.users.signIn(email, password, deps.origin.clientAddress(request), accountId);
      if ('chooseAccount' in done) return { choose_account: done.chooseAccount.map(accountJson) };
      return started(request, reply, done);
    },
  );

  // A user who must change their password may still see who they are, change it, and sign out.
  const allowed = { beforePasswordChange: true } as const;

  app.get(
    '/session',
    {
      config: allowed,
      schema: {
        tags: ['Administration'],
        operationId: 'adminGetSession',
        summary: 'The signed-in user, the account and the CSRF token',
        'x-response': { 200: SessionView, 401: ErrorBody },
      },
    },
    async (request) => {
      const session = adminSessionOf(request);
      return { user: userJson(session.user), account: accountJson(session.account), csrf_token: session.csrfToken };
    },
  );

  // The app's first question on every page, the sign-in and setup pages included: no session is an
  // answer here (204), not an error, so a browser logs nothing before anyone signed in. A cookie
  // sent twice is no session either (the guard's routes refuse it with 400).
  app.get(
    '/session/state',
    {
      config: { adminSession: 'none' },
      schema: {
        tags: ['Administration'],
        operationId: 'adminSessionState',
        summary: 'The session, or 204 when the request has none (no error)',
        'x-response': { 200: SessionView, 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const ids = cookieValues(request.headers.cookie, sessionCookieName(deps.origin.isHttps(request)));
      const session = ids.length === 1 ? await deps.sessions.resolve(ids[0]!) : null;
      if (!session) return reply.code(204).send();
      return { user: userJson(session.user), account: accountJson(session.account), csrf_token: session.csrfToken };
    },
  );

  app.delete(
    '/session',
    {
      config: allowed,
      schema: {
        tags: ['Administration'],
        operationId: 'adminSignOut',
        summary: 'Sign out: the session ends and its cookie is cleared',
        'x-response': { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await deps.sessions.end(adminSessionOf(request).idHash);
      return reply
        .code(204)
        .header('Set-Cookie', sessionCookie('', 0, deps.origin.isHttps(request)))
        .send();
    },
  );

  app.post(
    '/session/password',
    {
      config: allowed,
      schema: {
        tags: ['Administration'],
        operationId: 'adminChangePassword',
        summary: "Change the signed-in user's password",
        body: PasswordChangeBody,
        'x-response': { 204: Type.Null(), 422: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
    },
    async (request, reply) => {
      await deps.users.changePassword(adminSessionOf(request), request.body.current_password, request.body.new_password, deps.origin.clientAddress(request));
      return reply.code(204).send();
    },
  );

  app.post(
    '/setup',
    {
      config: { adminSession: 'none' },
      schema: {
        tags: ['Administration'],
        operationId: 'adminSetUp',
        summary: 'Set the first password with a one-time setup link, and sign in',
        body: SetupBody,
        'x-response': { 200: SessionView, 422: ErrorBody },
      },
    },
    async (request, reply) => started(request, reply, await deps.users.setUp(request.body.token, request.body.password)),
  );
};
