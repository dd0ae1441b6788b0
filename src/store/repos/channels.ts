import type { Kysely, Updateable } from 'kysely';
import type { ChannelsTable, Database } from '../schema.js';

export type ChannelRow = ChannelsTable;

/** Every method takes the account id: a forgotten tenant check cannot compile. */
export class ChannelsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: ChannelRow): Promise<void> {
    await this.db.insertInto('channels').values(row).execute();
  }

  async find(accountId: number, id: number): Promise<ChannelRow | undefined> {
    return this.db.selectFrom('channels').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  }

  /** For inbound platform calls, which carry no account token: the channel id in the URL finds its account. */
  async findAnyAccount(id: number): Promise<ChannelRow | undefined> {
    return this.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async list(accountId: number, limit: number, offset: number): Promise<{ rows: ChannelRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.db.selectFrom('channels').selectAll().where('account_id', '=', accountId).orderBy('id', 'asc').limit(limit).offset(offset).execute(),
      this.db
        .selectFrom('channels')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** The account's channels of one type (replies to a number several of them send from). */
  async ofType(accountId: number, type: string): Promise<ChannelRow[]> {
    return this.db.selectFrom('channels').selectAll().where('account_id', '=', accountId).where('type', '=', type).orderBy('id', 'asc').execute();
  }

  async update(accountId: number, id: number, changes: Updateable<ChannelsTable>): Promise<void> {
    await this.db.updateTable('channels').set(changes).where('account_id', '=', accountId).where('id', '=', id).execute();
  }

  async delete(accountId: number, id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('channels').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
