import type { Insertable, Kysely, Updateable } from 'kysely';
import type { AccountsTable, AccessTokensTable, Database } from '../schema.js';

export type AccountRow = AccountsTable;
export type TokenRow = AccessTokensTable;

export class AccountsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: AccountRow): Promise<void> {
    await this.db.insertInto('accounts').values(row).execute();
  }

  async find(id: number): Promise<AccountRow | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(): Promise<AccountRow[]> {
    return this.db.selectFrom('accounts').selectAll().orderBy('id').execute();
  }

  async update(id: number, changes: Updateable<AccountsTable>): Promise<boolean> {
    const result = await this.db.updateTable('accounts').set(changes).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** What deleting the account takes with it. */
  async usage(id: number): Promise<AccountUsage> {
    const channelsOf = this.db.selectFrom('channels').select('id').where('account_id', '=', id);
    const count = async (query: Promise<{ n: number | string | bigint } | undefined>) => Number((await query)?.n ?? 0);
    const [channels, contacts, messages, files, tokens] = await Promise.all([
      count(
        this.db
          .selectFrom('channels')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', id)
          .executeTakeFirst(),
      ),
      count(
        this.db
          .selectFrom('contacts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('channel_id', 'in', channelsOf)
          .executeTakeFirst(),
      ),
      count(
        this.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', id)
          .executeTakeFirst(),
      ),
      count(
        this.db
          .selectFrom('files')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', id)
          .executeTakeFirst(),
      ),
      count(
        this.db
          .selectFrom('access_tokens')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', id)
          .where('revoked_at', 'is', null)
          .executeTakeFirst(),
      ),
    ]);
    return { channels, contacts, messages, files, tokens };
  }

  /**
   * Deletes the account; foreign keys take its tokens, channels and everything of them (contacts,
   * messages, events, deliveries, jobs, file rows, web chat sessions). Its rate counters have no
   * foreign key and go here. Call it inside a transaction.
   */
  async delete(id: number): Promise<boolean> {
    await this.db.deleteFrom('rate_counters').where('account_id', '=', id).execute();
    const result = await this.db.deleteFrom('accounts').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

export interface AccountUsage {
  channels: number;
  contacts: number;
  messages: number;
  files: number;
  /** Tokens not revoked. */
  tokens: number;
}

/** A live token's account, with what the authentication cache needs to record the token's use. */
export interface TokenOwner {
  account: AccountRow;
  tokenId: number;
  lastUsedAt: number | null;
}

export class TokensRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<AccessTokensTable>): Promise<void> {
    await this.db.insertInto('access_tokens').values(row).execute();
  }

  async find(id: number): Promise<TokenRow | undefined> {
    return this.db.selectFrom('access_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** `findAccountByHash` with the token's id and last use, in the same one round trip. */
  async findOwnerByHash(hash: string): Promise<TokenOwner | undefined> {
    const row = await this.db
      .selectFrom('access_tokens')
      .innerJoin('accounts', 'accounts.id', 'access_tokens.account_id')
      .selectAll('accounts')
      .select(['access_tokens.id as token_id', 'access_tokens.last_used_at as token_last_used_at'])
      .where('access_tokens.token_hash', '=', hash)
      .where('access_tokens.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    const { token_id, token_last_used_at, ...account } = row;
    return { account, tokenId: Number(token_id), lastUsedAt: token_last_used_at === null ? null : Number(token_last_used_at) };
  }

  /** Records a use at `at`, unless one at or after `notBefore` is recorded already (by another instance). */
  async recordUse(id: number, at: number, notBefore: number): Promise<void> {
    await this.db
      .updateTable('access_tokens')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
      .execute();
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

  /** Whether a token with this hash was ever made (revoked or not). */
  async existsByHash(hash: string): Promise<boolean> {
    return (await this.db.selectFrom('access_tokens').select('id').where('token_hash', '=', hash).executeTakeFirst()) !== undefined;
  }

  async revokeByHash(hash: string, at: number): Promise<boolean> {
    const result = await this.db
      .updateTable('access_tokens')
      .set({ revoked_at: at })
      .where('token_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The account's tokens not revoked, oldest first. */
  async listLiveForAccount(accountId: number): Promise<TokenRow[]> {
    return this.db.selectFrom('access_tokens').selectAll().where('account_id', '=', accountId).where('revoked_at', 'is', null).orderBy('id').execute();
  }

  /** Revokes a live token of this account only; false when the account has no such live token. */
  async revokeForAccount(accountId: number, id: number, at: number): Promise<boolean> {
    const result = await this.db
      .updateTable('access_tokens')
      .set({ revoked_at: at })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async listForAccount(accountId: number): Promise<TokenRow[]> {
    return this.db.selectFrom('access_tokens').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  }
}
