import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { AccountsRepo, TokensRepo } from './repos/accounts.js';
import { ChannelsRepo } from './repos/channels.js';
import { EventsRepo } from './repos/events.js';

export type DialectName = 'sqlite' | 'postgres';

/** The repositories, bound either to the database or to one open transaction. */
export class Repos {
  readonly accounts: AccountsRepo;
  readonly tokens: TokensRepo;
  readonly channels: ChannelsRepo;
  readonly events: EventsRepo;

  constructor(readonly db: Kysely<Database>) {
    this.accounts = new AccountsRepo(db);
    this.tokens = new TokensRepo(db);
    this.channels = new ChannelsRepo(db);
    this.events = new EventsRepo(db);
  }
}

/** Counts requests per account and window; shared by all instances on PostgreSQL. */
export interface RateCounter {
  /** Adds one request and returns the count in the window so far, this one included. */
  hit(accountId: number, windowStart: number): Promise<number>;
  /** Drops finished windows. */
  prune(before: number): Promise<void>;
}

/**
 * One store interface over SQLite and PostgreSQL. What differs between the dialects (instance
 * leases, job claiming, counters) lives behind it; the domain never asks which one it has.
 */
export interface Store extends Repos {
  readonly dialect: DialectName;
  /** 0..15, distinct among the processes sharing the database: the instance part of ids. */
  readonly instanceId: number;
  readonly rateCounter: RateCounter;
  transaction<T>(work: (tx: Repos) => Promise<T>): Promise<T>;
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
