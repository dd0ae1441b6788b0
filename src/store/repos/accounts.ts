import type { Kysely } from 'kysely';
import type { AccountsTable, AccessTokensTable, Database } from '../schema.js';

export type AccountRow = AccountsTable;
export type TokenRow = AccessTokensTable;

export class AccountsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: AccountRow): Promise<void> {
    await this.db.insertInto('accounts').values(row).execute();
  }

  async get(id: number): Promise<AccountRow | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(): Promise<AccountRow[]> {
    return this.db.selectFrom('accounts').selectAll().orderBy('id').execute();
  }
}

export class TokensRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: TokenRow): Promise<void> {
    await this.db.insertInto('access_tokens').values(row).execute();
  }

  /** The account behind a live (not revoked) token hash, in one round trip. */
  async findAccountByHash(hash: string): Promise<AccountRow | undefined> {
    return this.db
      .selectFrom('access_tokens')
      .innerJoin('accounts', 'accounts.id', 'access_tokens.account_id')
      .selectAll('accounts')
      .where('access_tokens.token_hash', '=', hash)
      .where('access_tokens.revoked_at', 'is', null)
      .executeTakeFirst();
  }

  async revoke(id: number, at: number): Promise<boolean> {
    const result = await this.db.updateTable('access_tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async revokeByHash(hash: string, at: number): Promise<boolean> {
    const result = await this.db.updateTable('access_tokens').set({ revoked_at: at }).where('token_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async listForAccount(accountId: number): Promise<TokenRow[]> {
    return this.db.selectFrom('access_tokens').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  }
}
