import type pg from 'pg';
import { sql } from 'kysely';
import type { Logger } from '../../lib/logger.js';
import { MAX_INSTANCES } from '../../lib/ids.js';
import { StoreUnavailable } from '../errors.js';

/** Advisory-lock namespace for instance leases ("parley" in ASCII). */
export const LOCK_NAMESPACE = 0x70726c79;

/**
 * The instance numbers leased on this database now, as a subquery. pg_locks lists the advisory
 * locks of every database of the server, and another database's Parley holds the same numbers.
 */
export const leasedInstanceNumbers = (lockNamespace: number) => sql`
  SELECT objid::bigint FROM pg_locks
  WHERE locktype = 'advisory' AND classid = ${lockNamespace}::bigint::oid AND objsubid = 2 AND granted
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/** How often the lease's connection is checked: a silent network cut ends no socket by itself. */
const CHECK_EVERY_MS = 5_000;
/** A check not answered within this counts as a lost connection. */
export const CHECK_TIMEOUT_MS = 5_000;
/** Back-off between attempts to take a lease back. */
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5_000;

/**
 * The process's instance number (the instance part of ids, 0..15), leased with a session
 * advisory lock on a connection of its own; the database frees it when that session ends.
 *
 * A session can end without the process ending (a restart or failover of the server, an
 * administrator ending backends, a pooler recycling connections, a network cut). From then on
 * another process may take the number, so this one must not issue ids under it: `current()`
 * throws StoreUnavailable until a lease is held again. The lease is taken back in the background
 * with back-off, the same number first, else any free one (the number then changes, and the log
 * says so). A check every few seconds notices a cut that closes no socket.
 */
export class InstanceLease {
  private held = true;
  private closed = false;
  private checker: NodeJS.Timeout | null = null;
  private wakeRetry: () => void = () => undefined;
  private retrying: Promise<void> | null = null;

  private constructor(
    private readonly connect: () => pg.Client,
    private client: pg.Client | null,
    private number: number,
    private readonly logger: Logger | undefined,
  ) {
    this.watch(client!);
  }

  /** Takes the first free number; fails when every number is held. */
  static async acquire(connect: () => pg.Client, logger?: Logger): Promise<InstanceLease> {
    const client = connect();
    client.on('error', () => undefined);
    try {
      await client.connect();
      const n = await take(client, null);
      if (n === null) throw new Error(`all ${MAX_INSTANCES} instance numbers are in use on this database`);
      return new InstanceLease(connect, client, n, logger);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  /** The number last held (also while the lease is being taken back). */
  get instanceId(): number {
    return this.number;
  }

  get isHeld(): boolean {
    return this.held;
  }

  /** The number to issue ids under now; StoreUnavailable while the lease is not held. */
  current(): number {
    if (!this.held) throw new StoreUnavailable('the instance number is not held: its lease is being taken back');
    return this.number;
  }

  /** Ends the lease (its session): the number is free for another process. */
  async close(): Promise<void> {
    this.closed = true;
    this.held = false;
    if (this.checker) clearInterval(this.checker);
    this.wakeRetry();
    await this.retrying;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private watch(client: pg.Client): void {
    client.on('error', (error) => this.lost(client, error));
    client.once('end', () => this.lost(client, null));
    this.checker = setInterval(() => {
      check(client).catch((error: unknown) => this.lost(client, error));
    }, CHECK_EVERY_MS);
    this.checker.unref();
  }

  private lost(client: pg.Client, error: unknown): void {
    if (client !== this.client || this.closed) return;
    this.client = null;
    this.held = false;
    if (this.checker) clearInterval(this.checker);
    client.end().catch(() => undefined);
    this.logger?.warn(
      { instance: this.number, reason: reasonOf(error) },
      'the database connection holding the instance number was lost: writes are refused until the number is held again',
    );
    this.retrying = this.takeBack();
  }

  private async takeBack(): Promise<void> {
    let wait = RETRY_FIRST_MS;
    for (let attempt = 1; !this.closed; attempt++) {
      const client = this.connect();
      client.on('error', () => undefined);
      try {
        await client.connect();
        const n = this.closed ? null : await take(client, this.number);
        if (n !== null && !this.closed) {
          const before = this.number;
          this.client = client;
          this.number = n;
          this.held = true;
          this.watch(client);
          this.logger?.info(
            { instance: n, previous: before, attempts: attempt },
            n === before ? 'the instance number is held again: writes resume' : 'the instance number was taken meanwhile; holding another one: writes resume',
          );
          return;
        }
        if (n === null && !this.closed) this.logger?.warn({ attempt }, `all ${MAX_INSTANCES} instance numbers are in use; trying again`);
      } catch (error) {
        if (attempt === 1 || attempt % 10 === 0)
          this.logger?.warn({ attempt, reason: reasonOf(error) }, 'the instance number cannot be taken back yet; trying again');
      }
      await client.end().catch(() => undefined);
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wakeRetry = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wait = Math.min(wait * 2, RETRY_MAX_MS);
    }
  }
}

/** Locks `preferred` if it is free, else the first free number; null when all are held. */
async function take(client: pg.Client, preferred: number | null): Promise<number | null> {
  const order = preferred === null ? [] : [preferred];
  for (let n = 0; n < MAX_INSTANCES; n++) if (n !== preferred) order.push(n);
  for (const n of order) {
    const res = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [LOCK_NAMESPACE, n]);
    if (res.rows[0]?.ok) return n;
  }
  return null;
}

/** One round trip, bounded: the session still answers. */
function check(client: pg.Client): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([client.query('select 1'), timeout]).finally(() => clearTimeout(timer));
}

function reasonOf(error: unknown): string {
  if (error === null || error === undefined) return 'the connection ended';
  const e = error as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  return typeof e.code === 'string' ? `${e.code}: ${message}` : message;
}
