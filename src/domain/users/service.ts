import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/store.js';
import type { AdminUserRow } from '../../store/repos/admin-users.js';
import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { sha256Hex } from '../../lib/crypto.js';
import { ApiError } from '../../lib/errors.js';
import { USER_EMAIL_FIELD } from '../../schemas/users.js';
import { UniqueViolation } from '../../store/errors.js';
import { toAccount, type Account } from '../accounts/service.js';
import { hashPassword, verifyPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password.js';
import type { PasswordWork } from './hashing.js';
import type { NewSession, ResolvedSession, SessionService } from './sessions.js';
import type { SignInThrottle } from './throttle.js';
import { emailKey, isRole, toAdminUser, type AdminUser, type Role } from './views.js';

/** A setup link works once, within a day. */
export const SETUP_LINK_MS = 24 * 60 * 60_000;
const EMAIL_MAX_LENGTH = 254;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export const WRONG_CREDENTIALS = 'Wrong email or password.';
export const WRONG_SETUP_LINK = 'This setup link is not valid: it was used already, has expired or never existed.';

/** Too many sign-ins or password checks: try again after `retryAfterSeconds` (the route sends it as Retry-After). */
export class SignInThrottled extends ApiError {
  constructor(
    readonly retryAfterSeconds: number,
    what = 'sign-ins',
  ) {
    super('rate_limited', [{ message: `Too many ${what}. Try again in ${retryAfterSeconds} seconds.` }]);
  }
}

export interface UserServiceDeps {
  store: Store;
  ids: IdGenerator;
  clock: Clock;
  sessions: SessionService;
  throttle: SignInThrottle;
  /** The bound on scrypt work (hashing.ts): every hash and check goes through it. */
  hashing: PasswordWork;
  /** log2 of scrypt's N (password.ts). */
  passwordCost: number;
  /** The app's setup page, e.g. `https://example.com/admin/setup`; a link adds `?token=...`. */
  setupUrl: string;
}

/** Users of one e-mail checked at a sign-in: the accounts one person uses. */
export const ACCOUNTS_PER_EMAIL = 10;

/** The password matched users of several accounts: sign in again naming one of them. */
export interface AccountChoice {
  chooseAccount: Account[];
}

/** A signed-in user: the user, the account, and the new session for the cookie. */
export interface SignedIn {
  user: AdminUser;
  account: Account;
  session: NewSession;
}

function checkNewPassword(field: string, password: unknown): string {
  if (typeof password !== 'string') throw ApiError.invalid(field, null, `Property '${field}' must be a string.`);
  if (password.length < PASSWORD_MIN_LENGTH) throw ApiError.invalid(field, null, `The password must have at least ${PASSWORD_MIN_LENGTH} characters.`);
  if (password.length > PASSWORD_MAX_LENGTH) throw ApiError.invalid(field, null, `The password must have at most ${PASSWORD_MAX_LENGTH} characters.`);
  return password;
}

/**
 * Users of the administration app: owners manage users and tokens, members use the rest.
 * Passwords are scrypt hashes; a user made without one gets a one-time setup link. Rejected
 * passwords are never echoed back in errors.
 */
export class UserService {
  /** A hash nobody's password matches, checked when the e-mail is unknown so both answers take as long. */
  private decoy: Promise<string> | undefined;

  constructor(private readonly deps: UserServiceDeps) {}

  async findUser(id: number): Promise<AdminUser | undefined> {
    const row = await this.deps.store.adminUsers.find(id);
    return row ? toAdminUser(row) : undefined;
  }

  async listUsers(accountId: number): Promise<AdminUser[]> {
    return (await this.deps.store.adminUsers.listForAccount(accountId)).map(toAdminUser);
  }

  /**
   * Adds a user to the account. With a password (at least 12 characters) the user must change it
   * at first sign-in, since someone else chose it; without one the answer has a setup link.
   */
  async createUser(input: {
    accountId: number;
    email: string;
    role: Role;
    password?: string | undefined;
  }): Promise<{ user: AdminUser; setupLink: string | null }> {
    const email = input.email.trim();
    if (email.length > EMAIL_MAX_LENGTH || !EMAIL.test(email)) throw ApiError.invalid(USER_EMAIL_FIELD, input.email, 'The e-mail address is not valid.');
    if (!isRole(input.role)) throw ApiError.invalid('role', input.role, 'The role must be owner or member.');
    const password = input.password === undefined ? undefined : checkNewPassword('password', input.password);
    if (!(await this.deps.store.accounts.find(input.accountId))) throw ApiError.notFound('Account');
    const row: AdminUserRow = {
      id: this.deps.ids.nextNumber(),
      account_id: input.accountId,
      email,
      email_key: emailKey(email),
      role: input.role,
      password_hash: password === undefined ? null : await this.hash(password),
      must_change_password: password === undefined ? 0 : 1,
      created_at: this.deps.clock.now(),
    };
    try {
      await this.deps.store.adminUsers.insert(row);
    } catch (error) {
      // Only this account's users are compared: another account's say nothing here.
      if (error instanceof UniqueViolation)
        throw ApiError.invalid(USER_EMAIL_FIELD, input.email, 'A user with this e-mail address exists already in this account.');
      throw error;
    }
    const setupLink = password === undefined ? await this.newSetupLink(row.id) : null;
    return { user: toAdminUser(row), setupLink };
  }

  /**
   * Removes a user of the account. An owner cannot remove themself, and an account keeps at
   * least one owner. `actorId` is null for the operator's CLI.
   */
  async removeUser(accountId: number, id: number, actorId: number | null): Promise<void> {
    if (actorId !== null && id === actorId) throw ApiError.invalid('id', String(id), 'You cannot remove yourself.');
    await this.deps.store.transaction(async (tx) => {
      const row = await tx.adminUsers.findForAccount(accountId, id);
      if (!row) throw ApiError.notFound('User');
      if (row.role === 'owner' && (await tx.adminUsers.countOwners(accountId)) <= 1) {
        throw ApiError.invalid('id', String(id), 'The last owner of an account cannot be removed.');
      }
      await tx.adminUsers.delete(id);
    });
  }

  /** Ends the user's sessions and unused links, forgets the password, and answers a new setup link. */
  async resetPassword(id: number): Promise<string> {
    const row = await this.deps.store.adminUsers.find(id);
    if (!row) throw ApiError.notFound('User');
    await this.deps.store.transaction(async (tx) => {
      await tx.adminUsers.setPassword(id, null, false);
      await tx.adminSessions.deleteForUser(id);
      await tx.setupTokens.expireForUser(id, this.deps.clock.now());
    });
    return this.newSetupLink(id);
  }

  private async newSetupLink(userId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await this.deps.store.setupTokens.insert({
      token_hash: sha256Hex(token),
      user_id: userId,
      created_at: now,
      expires_at: now + SETUP_LINK_MS,
      used_at: null,
    });
    return `${this.deps.setupUrl}?token=${token}`;
  }

  /**
   * Checks e-mail and password; the same answer whether the e-mail is unknown or the password
   * wrong, in about the same time. Throttled per e-mail and per client address, failures and
   * successes alike (throttle.ts). One person may be a user of several accounts: without
   * `accountId`, when the password matches the users of more than one, the answer lists those
   * accounts (no session) and the person signs in again naming one; with it, only that
   * account's user is checked.
   */
  async signIn(email: string, password: string, address: string, accountId?: number): Promise<SignedIn | AccountChoice> {
    const key = emailKey(email);
    const attempt = await this.deps.throttle.begin(key, address);
    if (attempt.retryAfter > 0) throw new SignInThrottled(attempt.retryAfter, attempt.successes ? 'sign-ins' : 'failed sign-ins');
    const rows = key.length <= EMAIL_MAX_LENGTH ? await this.deps.store.adminUsers.findAllByEmailKey(key, ACCOUNTS_PER_EMAIL) : [];
    const candidates = rows.filter((r) => r.password_hash !== null && (accountId === undefined || Number(r.account_id) === accountId));
    const usable = password.length <= PASSWORD_MAX_LENGTH;
    const matched: AdminUserRow[] = [];
    if (candidates.length === 0) {
      if (usable) await this.verify(password, await this.decoyHash());
    } else if (usable) {
      // Each account's user has a password of its own: the person is a user of those it matches.
      for (const row of candidates) if (await this.verify(password, row.password_hash!)) matched.push(row);
    }
    // A failure stays counted (the attempt's rows are the count).
    if (matched.length === 0) throw ApiError.of('unauthorized', WRONG_CREDENTIALS);
    await this.deps.throttle.succeeded(key, address, attempt);
    if (matched.length === 1) return this.startSession(matched[0]!);
    const accounts: Account[] = [];
    for (const row of matched) {
      const account = await this.deps.store.accounts.find(row.account_id);
      if (account) accounts.push(toAccount(account));
    }
    return { chooseAccount: accounts };
  }

  /** Sets the password from a one-time setup link and signs in; the link is spent. */
  async setUp(token: string, password: string): Promise<SignedIn> {
    checkNewPassword('password', password);
    const userId = token.length > 0 && token.length <= 128 ? await this.deps.store.setupTokens.consume(sha256Hex(token), this.deps.clock.now()) : undefined;
    if (userId === undefined) throw ApiError.invalid('token', null, WRONG_SETUP_LINK);
    const hash = await this.hash(password);
    await this.deps.store.adminUsers.setPassword(userId, hash, false);
    await this.deps.sessions.endAllOf(userId);
    const row = await this.deps.store.adminUsers.find(userId);
    if (!row) throw ApiError.invalid('token', null, WRONG_SETUP_LINK);
    return this.startSession(row);
  }

  /**
   * Changes the signed-in user's password; the user's other sessions end. The current password
   * is checked under the sign-in throttle (its failures count as failed sign-ins of the e-mail
   * and the address), so a session cannot guess faster than the sign-in page.
   */
  async changePassword(session: ResolvedSession, current: string, next: string, address: string): Promise<void> {
    const row = await this.deps.store.adminUsers.find(session.user.id);
    if (!row) throw ApiError.of('unauthorized', 'The session has ended. Sign in again.');
    const attempt = await this.deps.throttle.begin(row.email_key, address);
    if (attempt.retryAfter > 0) throw new SignInThrottled(attempt.retryAfter, 'password checks');
    const ok = row.password_hash !== null && current.length <= PASSWORD_MAX_LENGTH && (await this.verify(current, row.password_hash));
    if (!ok) throw ApiError.invalid('current_password', null, 'The current password is wrong.');
    await this.deps.throttle.forget(attempt);
    checkNewPassword('new_password', next);
    if (next === current) throw ApiError.invalid('new_password', null, 'The new password must differ from the current one.');
    await this.deps.store.adminUsers.setPassword(row.id, await this.hash(next), false);
    await this.deps.sessions.endAllOf(row.id, session.idHash);
  }

  private hash(password: string): Promise<string> {
    return this.deps.hashing.run(() => hashPassword(password, this.deps.passwordCost));
  }

  private verify(password: string, hash: string): Promise<boolean> {
    return this.deps.hashing.run(() => verifyPassword(password, hash));
  }

  private async startSession(row: AdminUserRow): Promise<SignedIn> {
    const account = await this.deps.store.accounts.find(row.account_id);
    if (!account) throw ApiError.of('unauthorized', WRONG_CREDENTIALS);
    const session = await this.deps.sessions.create(row);
    return { user: toAdminUser(row), account: toAccount(account), session };
  }

  private decoyHash(): Promise<string> {
    // A refused turn must not be kept as the decoy: the next unknown e-mail tries again.
    this.decoy ??= this.hash(randomBytes(16).toString('hex')).catch((error: unknown) => {
      this.decoy = undefined;
      throw error;
    });
    return this.decoy;
  }
}
