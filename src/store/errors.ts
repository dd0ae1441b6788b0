/**
 * Constraint failures as the domain sees them, whatever the driver. The stores translate their
 * drivers' errors into these, so the domain can react (a concurrent duplicate, a row deleted
 * meanwhile) without knowing which database it has.
 */
export class UniqueViolation extends Error {
  constructor(
    readonly table: string,
    readonly columns: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`unique key (${columns.join(', ')}) of ${table} exists already`, options);
    this.name = 'UniqueViolation';
  }
}

/** A row refers to one that does not exist (any more). */
export class MissingReference extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MissingReference';
  }
}

/**
 * The database cannot be reached now (a lost or refused connection, a server shutting down or
 * starting, the instance lease not held): the request may succeed if retried shortly. A write
 * that fails so may or may not have committed; the API answers 503, and a retry with the same
 * idempotency key finds a write that did.
 */
export class StoreUnavailable extends Error {
  constructor(message = 'the store is unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailable';
  }
}

/**
 * SQLSTATE classes and codes of a server that is gone or not (yet) serving: connection
 * exceptions (08), an administrator's or a shutdown's end of the session (57P01, 57P02), a server
 * starting or recovering (57P03), and too many connections (53300).
 */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** The socket's own failures (refused, reset, unreachable, timed out). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * Said in words only: node-postgres's ended or broken connection and timed-out connect; the
 * server refusing connections to a database closed for maintenance (allow_connections false,
 * code 55000, which other errors share).
 */
const DRIVER_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Query read timeout)|is not currently accepting connections$/;

/** Whether `error` says the database is unreachable now, rather than that the query was wrong. */
export function isStoreUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailable) return true;
  const e = error as DriverError | null;
  if (typeof e !== 'object' || e === null) return false;
  if (typeof e.code === 'string' && (e.code.startsWith('08') || UNAVAILABLE_CODES.has(e.code) || SOCKET_CODES.has(e.code))) return true;
  return typeof e.message === 'string' && DRIVER_MESSAGES.test(e.message);
}

/**
 * Whether `error` says the database was busy with another connection's lock: SQLite's BUSY (a
 * transaction that read first cannot wait for the write lock a checkpoint holds, it fails at
 * once), PostgreSQL's lock and serialization failures. Running the transaction again may work.
 */
export function isStoreBusy(error: unknown): boolean {
  const code = (error as DriverError | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code === '40001' || code === '40P01' || code === '55P03');
}

interface DriverError {
  code?: unknown;
  message?: unknown;
  table?: unknown;
  detail?: unknown;
}

/** better-sqlite3: "UNIQUE constraint failed: messages.account_id, messages.idempotency_key" */
export function translateSqliteError(error: unknown): unknown {
  const e = error as DriverError;
  if (typeof e?.code !== 'string' || typeof e.message !== 'string') return error;
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const list = e.message.split(':')[1] ?? '';
    const parts = list
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p.length > 0);
    const table = parts[0]?.split('.')[0] ?? '';
    return new UniqueViolation(
      table,
      parts.map((p) => p.split('.')[1] ?? p),
      { cause: error },
    );
  }
  if (e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return new MissingReference(e.message, { cause: error });
  return error;
}

/** node-postgres: code 23505 with detail "Key (account_id, idempotency_key)=(...) already exists." */
export function translatePostgresError(error: unknown): unknown {
  const e = error as DriverError;
  if (isStoreUnavailable(error)) {
    if (error instanceof StoreUnavailable) return error;
    return new StoreUnavailable(`the store is unavailable: ${typeof e.message === 'string' ? e.message : String(error)}`, { cause: error });
  }
  if (e?.code === '23505') {
    const m = typeof e.detail === 'string' ? /^Key \(([^)]*)\)=/.exec(e.detail) : null;
    const columns = m?.[1] ? m[1].split(',').map((c) => c.trim()) : [];
    return new UniqueViolation(typeof e.table === 'string' ? e.table : '', columns, { cause: error });
  }
  if (e?.code === '23503') return new MissingReference(typeof e.message === 'string' ? e.message : 'missing reference', { cause: error });
  return error;
}
