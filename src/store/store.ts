import type { QueueDepth } from './operations.js';
import { NlpRepo } from './repos/nlp.js';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { AccountsRepo, TokensRepo } from './repos/accounts.js';
import { ChannelsRepo } from './repos/channels.js';
import { EventsRepo } from './repos/events.js';
import { DeliveriesRepo } from './repos/deliveries.js';
import { MessagesRepo } from './repos/messages.js';
import { ContactsRepo } from './repos/contacts.js';
import { FilesRepo } from './repos/files.js';
import { SignatureBindingsRepo } from './repos/signature-bindings.js';
import { RetentionRepo } from './repos/retention.js';
import { ServiceMetaRepo } from './repos/service-meta.js';
import { ChatRepo } from './repos/chat.js';
import { FailoversRepo } from './repos/failovers.js';
import { ConversationRepo } from './repos/conversation.js';
import { OverviewRepo } from './repos/overview.js';
import { AdminSessionsRepo, AdminSetupTokensRepo, AdminUsersRepo, SignInFailuresRepo } from './repos/admin-users.js';
import type { WriteUnit } from './write-unit.js';
import type { DeliveryQueue } from './delivery-queue.js';
import type { JobQueue } from './job-queue.js';
import type { ClusterBus } from './cluster-bus.js';

export type { ClusterBus } from './cluster-bus.js';

export type DialectName = 'sqlite' | 'postgres';

/** Background work one process at a time may do (Store.runAlone), each with its lock key. */
export const EXCLUSIVE_TASKS = { retention: 1, bootstrap: 2 } as const;
export type ExclusiveTask = keyof typeof EXCLUSIVE_TASKS;

/** The repositories, bound either to the database or to one open transaction. */
export class Repos {
  readonly accounts: AccountsRepo;
  readonly tokens: TokensRepo;
  readonly channels: ChannelsRepo;
  readonly events: EventsRepo;
  readonly deliveries: DeliveriesRepo;
  readonly messages: MessagesRepo;
  readonly contacts: ContactsRepo;
  readonly files: FilesRepo;
  readonly chat: ChatRepo;
  readonly conversation: ConversationRepo;
  /** Counts for the administration app's overview. */
  readonly overview: OverviewRepo;
  readonly adminUsers: AdminUsersRepo;
  readonly adminSessions: AdminSessionsRepo;
  readonly setupTokens: AdminSetupTokensRepo;
  readonly signInFailures: SignInFailuresRepo;
  /** NLP integrations and their trained models. */
  readonly nlp: NlpRepo;
  /** Bodies bound to inbound signatures that do not cover them (inbound mail). */
  readonly signatureBindings: SignatureBindingsRepo;
  /** The retention purge's batches (domain/retention). */
  readonly retention: RetentionRepo;
  /** Facts about the installation checked at every start (the key check, the files marker). */
  readonly serviceMeta: ServiceMetaRepo;
  /** Failover chains of Send Message with fallbacks (domain/failover). */
  readonly failovers: FailoversRepo;

  constructor(readonly db: Kysely<Database>) {
    this.accounts = new AccountsRepo(db);
    this.tokens = new TokensRepo(db);
    this.channels = new ChannelsRepo(db);
    this.events = new EventsRepo(db);
    this.deliveries = new DeliveriesRepo(db);
    this.messages = new MessagesRepo(db);
    this.contacts = new ContactsRepo(db);
    this.files = new FilesRepo(db);
    this.chat = new ChatRepo(db);
    this.conversation = new ConversationRepo(db);
    this.overview = new OverviewRepo(db);
    this.adminUsers = new AdminUsersRepo(db);
    this.adminSessions = new AdminSessionsRepo(db);
    this.setupTokens = new AdminSetupTokensRepo(db);
    this.signInFailures = new SignInFailuresRepo(db);
    this.nlp = new NlpRepo(db);
    this.signatureBindings = new SignatureBindingsRepo(db);
    this.retention = new RetentionRepo(db);
    this.serviceMeta = new ServiceMetaRepo(db);
    this.failovers = new FailoversRepo(db);
  }
}

/** Counts requests per account and window; shared by all instances on PostgreSQL. */
export interface RateCounter {
  /**
   * Adds one request and returns its position in the window's count (this one included): a
   * request is admitted when its position is within `limit`.
   */
  hit(accountId: number, windowStart: number, limit: number): Promise<number>;
  /** Drops finished windows. */
  prune(before: number): Promise<void>;
  /** Requests counted so far in the window, without counting one (the usage the app shows). */
  used(accountId: number, windowStart: number): Promise<number>;
}

/**
 * One store interface over SQLite and PostgreSQL. What differs between the dialects (instance
 * leases, job claiming, counters) lives behind it; the domain never asks which one it has.
 */
export interface Store extends Repos {
  readonly dialect: DialectName;
  /**
   * 0..15, distinct among the processes sharing the database: the instance number this process
   * holds, or last held while its lease is being taken back (PostgreSQL).
   */
  readonly instanceId: number;
  /**
   * The instance part of the ids to issue now; throws StoreUnavailable (store/errors.ts) while the
   * number is not held, so no id is issued under a number another process may hold.
   */
  idInstance(): number;
  readonly rateCounter: RateCounter;
  /** The webhook delivery queue the workers claim from. */
  readonly deliveryQueue: DeliveryQueue;
  /** The job queue (send jobs and other background work) the workers claim from. */
  readonly jobQueue: JobQueue;
  transaction<T>(work: (tx: Repos) => Promise<T>): Promise<T>;
  /**
   * Runs `work` unless another run of the same `task` holds it, in this process or (PostgreSQL)
   * in any process sharing the database: answers `{ ran: false }` then. On PostgreSQL the hold is a
   * session advisory lock on one pooled connection for the length of `work`, freed with the
   * connection if the process dies.
   */
  runAlone<T>(task: ExclusiveTask, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /**
   * Inserts one unit's rows atomically, grouped with the units of other requests (group commit:
   * one SQLite transaction per event-loop turn, one statement on PostgreSQL). Resolves once
   * committed; rejects with UniqueViolation or MissingReference (store/errors.ts) for that unit alone.
   */
  batchWrite(unit: WriteUnit): Promise<void>;
  migrate(): Promise<string[]>;
  /**
   * The bus between the processes sharing the database, for the chat server's socket.io adapter;
   * null on SQLite (one process). Its errors (a dropped connection) go to `onError`.
   */
  openClusterBus(onError: (error: Error) => void): ClusterBus | null;
  ping(): Promise<void>;
  /** Due items per queue, bounded (store/operations.ts): read when metrics are scraped. */
  queueDepths(now: number): Promise<QueueDepth[]>;
  /** The migrations of this build the database has not run: readiness wants none. */
  pendingMigrations(): Promise<string[]>;
  /** The query pool's connections (PostgreSQL); null on SQLite, which has one connection. */
  poolUse(): PoolUse | null;
  /**
   * How busy the database is, for the retention purge's pace: the queries of other sessions
   * running now plus this process's queries waiting for a pooled connection, and the
   * transactions committed or rolled back on the database so far (a running total, as the
   * database's statistics show it, up to a second late). Null on SQLite, whose one process sees
   * its load on its event loop.
   */
  storeLoad(): Promise<StoreLoad | null>;
  close(): Promise<void>;
}

export interface StoreLoad {
  queriesElsewhere: number;
  transactions: number;
}

export interface PoolUse {
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}
