import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ClaimedDelivery, ClaimRequest, DeliveryOutcome, DeliveryQueue } from '../delivery-queue.js';
import { attemptTuples, outcomeTuples, pickFair, type ScannedRow } from '../delivery-rows.js';

/** The earliest due rows no lease holds, with what the fairness rule needs (see pickFair). */
const scanSql = (exclusions: boolean) => `
  SELECT id, channel_id, account_id FROM deliveries
  WHERE status = 'pending' AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until < ?)
  ${exclusions ? 'AND channel_id NOT IN (SELECT value FROM json_each(?)) AND account_id NOT IN (SELECT value FROM json_each(?))' : ''}
  ORDER BY next_attempt_at, id
  LIMIT ?`;

const LEASE = `
  UPDATE deliveries SET locked_until = ?, lease_id = ?, locked_by = ?
  WHERE id IN (SELECT value FROM json_each(?))
  RETURNING id, event_id, account_id, channel_id, webhook_id, attempts,
    (SELECT type || ifnull(char(10) || correlation_id, '') FROM events WHERE events.id = deliveries.event_id) AS event_type,
    (SELECT body FROM events WHERE events.id = deliveries.event_id) AS body`;

type LeasedRow = [
  id: number,
  eventId: number,
  accountId: number,
  channelId: number,
  webhookId: number,
  attempts: number,
  typeAndCorrelation: string,
  body: string,
];

/**
 * A leased row as the worker wants it. RETURNING takes no join, so each column of the event is a
 * lookup of its own: the event's type and correlation id come in one (neither holds a line
 * break), split here.
 */
function claimed([id, eventId, accountId, channelId, webhookId, attempts, typeAndCorrelation, body]: LeasedRow): ClaimedDelivery {
  const at = typeAndCorrelation.indexOf('\n');
  return {
    id,
    eventId,
    accountId,
    channelId,
    webhookId,
    attempts,
    eventType: at === -1 ? typeAndCorrelation : typeAndCorrelation.slice(0, at),
    body,
    correlationId: at === -1 ? null : typeAndCorrelation.slice(at + 1),
  };
}

// A try is logged even when the lease moved on; not when the delivery itself is gone.
const INSERT_ATTEMPT = `
  INSERT INTO delivery_attempts (id, delivery_id, attempted_at, url, status_code, duration_ms, response_excerpt, error)
  SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ?)`;

const UPDATE_DELIVERY = `
  UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?, locked_until = NULL,
    last_status_code = ?, last_error = ?, updated_at = ?
  WHERE id = ? AND lease_id = ?`;

const RELEASE = `UPDATE deliveries SET locked_until = NULL WHERE lease_id = ? AND id IN (SELECT value FROM json_each(?))`;

/**
 * The queue on SQLite. One process owns the file and runs the one worker, so a claim needs no
 * row locks: it reads the earliest due rows, picks among them in code (at most `perChannel` of
 * each channel, and `perAccount` of each account when several share them: pickFair, the rule the
 * PostgreSQL claim states in SQL) and leases those in one UPDATE. Picking in code spares SQLite
 * the window functions' three sorts, about a third of a claim's time. The statements are
 * prepared once and run synchronously while holding Kysely's connection, so no other
 * transaction interleaves between the read and the lease.
 */
export class SqliteDeliveryQueue implements DeliveryQueue {
  private prepared: {
    scan: BetterSqlite3.Statement;
    scanExcluding: BetterSqlite3.Statement;
    lease: BetterSqlite3.Statement;
    insertAttempt: BetterSqlite3.Statement;
    updateDelivery: BetterSqlite3.Statement;
    release: BetterSqlite3.Statement;
    complete: (outcomes: readonly DeliveryOutcome[]) => void;
  } | null = null;

  constructor(
    private readonly connection: BetterSqlite3.Database,
    private readonly db: Kysely<Database>,
  ) {}

  /** Prepared on first use: the tables exist only after the migrations ran. */
  private get statements() {
    if (!this.prepared) {
      const insertAttempt = this.connection.prepare(INSERT_ATTEMPT);
      const updateDelivery = this.connection.prepare(UPDATE_DELIVERY);
      this.prepared = {
        scan: this.connection.prepare(scanSql(false)).raw(),
        scanExcluding: this.connection.prepare(scanSql(true)).raw(),
        lease: this.connection.prepare(LEASE).raw(),
        insertAttempt,
        updateDelivery,
        release: this.connection.prepare(RELEASE),
        complete: this.connection.transaction((outcomes: readonly DeliveryOutcome[]) => {
          for (const a of attemptTuples(outcomes)) insertAttempt.run(...a, a[1]);
          for (const o of outcomeTuples(outcomes)) {
            const [id, leaseId, ...rest] = o;
            updateDelivery.run(...rest, id, leaseId);
          }
        }),
      };
    }
    return this.prepared;
  }

  private exclusive<T>(work: () => T): Promise<T> {
    return this.db.connection().execute(async () => work());
  }

  claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
    if (r.limit <= 0) return Promise.resolve([]);
    return this.exclusive(() => {
      const { scan, scanExcluding, lease } = this.statements;
      const seen = (
        r.excludeChannels.length > 0 || r.excludeAccounts.length > 0
          ? scanExcluding.all(r.now, r.leaseNow, JSON.stringify(r.excludeChannels), JSON.stringify(r.excludeAccounts), r.scanLimit)
          : scan.all(r.now, r.leaseNow, r.scanLimit)
      ) as ScannedRow[];
      const picked = pickFair(seen, r);
      if (picked.length === 0) return [];
      const rows = lease.all(r.leaseUntil, r.leaseId, r.instanceId, JSON.stringify(picked)) as LeasedRow[];
      // In id order, as on PostgreSQL (toClaimed).
      return rows.map(claimed).sort((a, b) => a.id - b.id);
    });
  }

  complete(outcomes: readonly DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return Promise.resolve();
    return this.exclusive(() => this.statements.complete(outcomes));
  }

  release(ids: readonly number[], leaseId: number): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.exclusive(() => {
      this.statements.release.run(leaseId, JSON.stringify(ids));
    });
  }

  /** One process serves a SQLite file: its worker is woken in process. */
  announce(): void {}

  subscribe(): () => Promise<void> {
    return () => Promise.resolve();
  }

  /** Only this process uses the file, so every lease found at start belongs to a process that ended. */
  async releaseOrphans(ownInstance: number | null): Promise<number> {
    if (ownInstance === null) return 0;
    const result = await this.db
      .updateTable('deliveries')
      .set({ locked_until: null, lease_id: null })
      .where('status', '=', 'pending')
      .where('locked_until', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
