import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ClaimedDelivery, ClaimRequest, DeliveryOutcome, DeliveryQueue } from '../delivery-queue.js';
import { attemptTuples, outcomeTuples, type ClaimedRow, toClaimed } from '../delivery-rows.js';

/** The limits are written into the statement: bound as parameters they make it about 2x slower. */
const claimSql = (scanLimit: number, perChannel: number, perAccount: number, limit: number) => `
  UPDATE deliveries SET locked_until = @leaseUntil, lease_id = @leaseId, locked_by = @instanceId
  WHERE id IN (
    SELECT id FROM (
      SELECT id, next_attempt_at,
        row_number() OVER (PARTITION BY channel_id ORDER BY next_attempt_at, id) AS rn,
        row_number() OVER (PARTITION BY account_id ORDER BY next_attempt_at, id) AS an,
        min(account_id) OVER () = max(account_id) OVER () AS alone
      FROM (
        SELECT id, channel_id, account_id, next_attempt_at FROM deliveries
        WHERE status = 'pending' AND next_attempt_at <= @now
          AND (locked_until IS NULL OR locked_until < @leaseNow)
          AND channel_id NOT IN (SELECT value FROM json_each(@excluded))
          AND account_id NOT IN (SELECT value FROM json_each(@excludedAccounts))
        ORDER BY next_attempt_at, id
        LIMIT ${scanLimit}))
    WHERE rn <= ${perChannel} AND (an <= ${perAccount} OR alone)
    ORDER BY next_attempt_at, id
    LIMIT ${limit})
  RETURNING id, event_id, account_id, channel_id, webhook_id, attempts,
    (SELECT type || ifnull(char(10) || correlation_id, '') FROM events WHERE events.id = deliveries.event_id) AS event_type,
    (SELECT body FROM events WHERE events.id = deliveries.event_id) AS body`;

/**
 * RETURNING takes no join, so each column of the event is a lookup of its own: the event's type
 * and correlation id come in one (neither holds a line break), split here.
 */
function withCorrelation(row: Omit<ClaimedRow, 'correlation_id'>): ClaimedRow {
  const at = row.event_type.indexOf('\n');
  return at === -1 ? { ...row, correlation_id: null } : { ...row, event_type: row.event_type.slice(0, at), correlation_id: row.event_type.slice(at + 1) };
}

function int(n: number): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`claim limits must be positive integers (got ${n})`);
  return n;
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
 * row locks: one UPDATE picks the earliest due rows (at most `perChannel` of each channel, and
 * `perAccount` of each account when several share them) and leases them. The statements are prepared once and run synchronously while holding Kysely's
 * connection, so no other transaction interleaves and no statement is compiled twice.
 */
export class SqliteDeliveryQueue implements DeliveryQueue {
  private readonly claims = new Map<string, BetterSqlite3.Statement>();
  private prepared: {
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

  private claimStatement(scanLimit: number, perChannel: number, perAccount: number, limit: number): BetterSqlite3.Statement {
    const key = `${scanLimit}|${perChannel}|${perAccount}|${limit}`;
    let statement = this.claims.get(key);
    if (!statement) {
      if (this.claims.size >= 256) this.claims.clear();
      statement = this.connection.prepare(claimSql(int(scanLimit), int(perChannel), int(perAccount), int(limit)));
      this.claims.set(key, statement);
    }
    return statement;
  }

  private exclusive<T>(work: () => T): Promise<T> {
    return this.db.connection().execute(async () => work());
  }

  claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
    if (r.limit <= 0) return Promise.resolve([]);
    return this.exclusive(() => {
      const rows = this.claimStatement(r.scanLimit, r.perChannel, r.perAccount, r.limit).all({
        leaseUntil: r.leaseUntil,
        leaseId: r.leaseId,
        instanceId: r.instanceId,
        now: r.now,
        leaseNow: r.leaseNow,
        excluded: JSON.stringify(r.excludeChannels),
        excludedAccounts: JSON.stringify(r.excludeAccounts),
      }) as Omit<ClaimedRow, 'correlation_id'>[];
      return toClaimed(rows.map(withCorrelation));
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
