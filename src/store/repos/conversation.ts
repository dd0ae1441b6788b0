import { sql, type Kysely } from 'kysely';
import type { ChannelsTable, Database, MessagesTable } from '../schema.js';
import { markMessagesRead } from './read-marks.js';

/**
 * What platform callbacks and the messaging window need beyond the shared repositories: messages
 * by the platform's id, delivery and read watermarks, the time of a contact's last activity, and
 * channels by a value of their type's config (the page an event names).
 */
export class ConversationRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async findByExternalId(accountId: number, channelId: number, direction: 'sent' | 'received', externalId: string): Promise<MessagesTable | undefined> {
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('channel_id', '=', channelId)
      .where('direction', '=', direction)
      .where('external_id', '=', externalId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  /** A message the channel sent, by the service's own id (a platform's report that names it by our reference). */
  async findSentById(accountId: number, channelId: number, id: number): Promise<MessagesTable | undefined> {
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('channel_id', '=', channelId)
      .where('direction', '=', 'sent')
      .executeTakeFirst();
  }

  /**
   * Marks the contact's sent messages delivered: those with the given platform ids, and every one
   * sent up to `upTo` (ms) when given. Answers the ids marked now, oldest first.
   */
  async markDelivered(accountId: number, contactId: number, externalIds: readonly string[], upTo: number | null, at: number): Promise<number[]> {
    if (externalIds.length === 0 && upTo === null) return [];
    const rows = await this.db
      .updateTable('messages')
      .set({ delivered_at: at })
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where('direction', '=', 'sent')
      .where('status', '!=', 'failed')
      .where('delivered_at', 'is', null)
      .where((eb) => {
        const parts = [];
        if (externalIds.length > 0) parts.push(eb('external_id', 'in', [...externalIds]));
        if (upTo !== null) parts.push(eb('sent_at', '<=', upTo));
        return eb.or(parts);
      })
      .returning('id')
      .execute();
    return rows.map((r) => r.id).sort((a, b) => a - b);
  }

  /** Marks the contact's sent messages up to `upTo` read (and delivered, when they were not yet); see markMessagesRead. */
  async markRead(accountId: number, contactId: number, upTo: number, at: number): Promise<{ read: number; newlyDelivered: number[] }> {
    return markMessagesRead(this.db, accountId, contactId, 'sent', upTo, at);
  }

  /**
   * The contact's last inbound activity (a message, a button pressed, an opt-in: the time the
   * service recorded it) and the last message sent to it that the platform took.
   */
  async lastActivity(accountId: number, contactId: number): Promise<{ lastInboundAt: number | null; lastSentAt: number | null }> {
    const [received, action, sent] = await Promise.all([
      this.db
        .selectFrom('messages')
        .select((eb) => eb.fn.max('created_at').as('at'))
        .where('account_id', '=', accountId)
        .where('contact_id', '=', contactId)
        .where('direction', '=', 'received')
        .executeTakeFirst(),
      // Events about no single message name their contact (an opt-in, a button pressed).
      this.db
        .selectFrom('events')
        .select((eb) => eb.fn.max('created_at').as('at'))
        .where('account_id', '=', accountId)
        .where('contact_id', '=', contactId)
        .where('type', 'in', ['postback', 'opt_in'])
        .executeTakeFirst(),
      this.db
        .selectFrom('messages')
        .select((eb) => eb.fn.max('sent_at').as('at'))
        .where('account_id', '=', accountId)
        .where('contact_id', '=', contactId)
        .where('direction', '=', 'sent')
        .where('status', '!=', 'failed')
        .executeTakeFirst(),
    ]);
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    const inbound = [num(received?.at), num(action?.at)].filter((t): t is number => t !== null);
    return { lastInboundAt: inbound.length > 0 ? Math.max(...inbound) : null, lastSentAt: num(sent?.at) };
  }

  /** The latest message sent to the contact that the platform took (its quick replies are the ones on screen). */
  async lastSent(accountId: number, contactId: number): Promise<MessagesTable | undefined> {
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where('direction', '=', 'sent')
      .where('status', '!=', 'failed')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The contact's latest message (by the service's order of arrival). */
  async lastReceived(accountId: number, contactId: number): Promise<MessagesTable | undefined> {
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where('direction', '=', 'received')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Channels of a type whose config holds `"key":"value"` (e.g. the page id of socialnet_chat),
   * across accounts: a platform callback names its page, not an account. The caller checks the
   * decoded config; the text match only narrows the scan.
   */
  async channelsByConfigValue(type: string, key: string, value: string): Promise<ChannelsTable[]> {
    const needle = `${JSON.stringify(key)}:${JSON.stringify(value)}`.replace(/[\\%_]/g, (c) => `\\${c}`);
    return this.db
      .selectFrom('channels')
      .selectAll()
      .where('type', '=', type)
      .where(sql<boolean>`config like ${`%${needle}%`} escape '\\'`)
      .orderBy('id', 'asc')
      .execute();
  }
}
