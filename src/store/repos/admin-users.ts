import type { Insertable, Kysely } from 'kysely';
import { translatePostgresError, translateSqliteError } from '../errors.js';
import type { AccountsTable, AdminSessionsTable, AdminSetupTokensTable, AdminUsersTable, Database } from '../schema.js';

export type AdminUserRow = AdminUsersTable;
export type AdminSessionRow = AdminSessionsTable;

/** A live session with its user and the user's account, read in one round trip. */
export interface SessionWithUser {
  session: AdminSessionRow;
  user: AdminUserRow;
  account: AccountsTable;
}

/** Users of the administration app. Reads of an account's users take the account id. */
export class AdminUsersRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Rejects with UniqueViolation when the e-mail is taken in the account (in any letter case). */
  async insert(row: AdminUserRow): Promise<void> {
    try {
      await this.db.insertInto('admin_users').values(row).execute();
    } catch (error) {
      // Each translation leaves the other driver's errors as they are.
      throw translatePostgresError(translateSqliteError(error));
    }
  }

  async find(id: number): Promise<AdminUserRow | undefined> {
    return this.db.selectFrom('admin_users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findForAccount(accountId: number, id: number): Promise<AdminUserRow | undefined> {
    return this.db.selectFrom('admin_users').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  /** The users of an e-mail in every account (one person may be a user of several), oldest account first. */
  async findAllByEmailKey(emailKey: string, limit: number): Promise<AdminUserRow[]> {
    return this.db.selectFrom('admin_users').selectAll().where('email_key', '=', emailKey).orderBy('account_id').orderBy('id').limit(limit).execute();
  }

  async listForAccount(accountId: number): Promise<AdminUserRow[]> {
    return this.db.selectFrom('admin_users').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  }

  async countOwners(accountId: number): Promise<number> {
    const row = await this.db
      .selectFrom('admin_users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async setPassword(id: number, hash: string | null, mustChange: boolean): Promise<boolean> {
    const result = await this.db
      .updateTable('admin_users')
      .set({ password_hash: hash, must_change_password: mustChange ? 1 : 0 })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Deletes the user; its sessions and setup links go with it (foreign keys). */
  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('admin_users').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

export class AdminSessionsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: AdminSessionRow): Promise<void> {
    await this.db.insertInto('admin_sessions').values(row).execute();
  }

  async findWithUser(idHash: string): Promise<SessionWithUser | undefined> {
    const row = await this.db
      .selectFrom('admin_sessions as s')
      .innerJoin('admin_users as u', 'u.id', 's.user_id')
      .innerJoin('accounts as a', 'a.id', 'u.account_id')
      .select([
        's.id_hash',
        's.user_id',
        's.csrf_token',
        's.created_at as s_created_at',
        's.last_seen_at',
        's.expires_at',
        'u.id as u_id',
        'u.account_id as u_account_id',
        'u.email',
        'u.email_key',
        'u.role',
        'u.password_hash',
        'u.must_change_password',
        'u.created_at as u_created_at',
        'a.id as a_id',
        'a.name as a_name',
        'a.plan as a_plan',
        'a.hourly_limit as a_hourly_limit',
        'a.concurrency_limit as a_concurrency_limit',
        'a.created_at as a_created_at',
      ])
      .where('s.id_hash', '=', idHash)
      .executeTakeFirst();
    if (!row) return undefined;
    const num = (v: number | string | null): number | null => (v === null ? null : Number(v));
    return {
      session: {
        id_hash: row.id_hash,
        user_id: Number(row.user_id),
        csrf_token: row.csrf_token,
        created_at: Number(row.s_created_at),
        last_seen_at: Number(row.last_seen_at),
        expires_at: Number(row.expires_at),
      },
      user: {
        id: Number(row.u_id),
        account_id: Number(row.u_account_id),
        email: row.email,
        email_key: row.email_key,
        role: row.role,
        password_hash: row.password_hash,
        must_change_password: Number(row.must_change_password),
        created_at: Number(row.u_created_at),
      },
      account: {
        id: Number(row.a_id),
        name: row.a_name,
        plan: row.a_plan,
        hourly_limit: num(row.a_hourly_limit),
        concurrency_limit: num(row.a_concurrency_limit),
        created_at: Number(row.a_created_at),
      },
    };
  }

  /** Moves the last use forward (never back, when another instance wrote a later one). */
  async touch(idHash: string, at: number): Promise<void> {
    await this.db.updateTable('admin_sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).where('last_seen_at', '<', at).execute();
  }

  async delete(idHash: string): Promise<boolean> {
    const result = await this.db.deleteFrom('admin_sessions').where('id_hash', '=', idHash).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Ends every session of the user, except the one named (the caller's own, on a password change). */
  async deleteForUser(userId: number, except?: string): Promise<number> {
    let query = this.db.deleteFrom('admin_sessions').where('user_id', '=', userId);
    if (except !== undefined) query = query.where('id_hash', '!=', except);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Ends the user's sessions beyond the `keep` newest (by start); answers how many ended. */
  async keepNewest(userId: number, keep: number): Promise<number> {
    const rows = await this.db
      .selectFrom('admin_sessions')
      .select('id_hash')
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('last_seen_at', 'desc')
      .execute();
    const older = rows.slice(keep).map((r) => r.id_hash);
    if (older.length === 0) return 0;
    const result = await this.db.deleteFrom('admin_sessions').where('id_hash', 'in', older).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Removes sessions past their absolute end or idle since `idleBefore`. */
  async deleteExpired(now: number, idleBefore: number): Promise<number> {
    const result = await this.db
      .deleteFrom('admin_sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleBefore)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

export class AdminSetupTokensRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<AdminSetupTokensTable>): Promise<void> {
    await this.db.insertInto('admin_setup_tokens').values(row).execute();
  }

  /**
   * Marks the link used if it is live (not used, not expired) and answers its user; a second use,
   * even at the same moment from another instance, finds it used.
   */
  async consume(tokenHash: string, now: number): Promise<number | undefined> {
    const row = await this.db
      .updateTable('admin_setup_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    return row ? Number(row.user_id) : undefined;
  }

  /** Ends the user's unused links (a new one replaces them). */
  async expireForUser(userId: number, now: number): Promise<void> {
    await this.db.updateTable('admin_setup_tokens').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
  }
}

export class SignInFailuresRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async record(entries: ReadonlyArray<{ id: number; key: string }>, at: number): Promise<void> {
    if (entries.length === 0) return;
    await this.db
      .insertInto('admin_sign_in_failures')
      .values(entries.map(({ id, key }) => ({ id, key, at })))
      .execute();
  }

  /** The times of the key's latest `limit` failures since `since`, newest first. */
  async recent(key: string, since: number, limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('admin_sign_in_failures')
      .select('at')
      .where('key', '=', key)
      .where('at', '>', since)
      .orderBy('at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => Number(r.at));
  }

  async deleteIds(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .deleteFrom('admin_sign_in_failures')
      .where('id', 'in', [...ids])
      .execute();
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('admin_sign_in_failures').where('key', '=', key).execute();
  }

  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('admin_sign_in_failures').where('at', '<=', before).execute();
  }
}
