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
  if (e?.code === '23505') {
    const m = typeof e.detail === 'string' ? /^Key \(([^)]*)\)=/.exec(e.detail) : null;
    const columns = m?.[1] ? m[1].split(',').map((c) => c.trim()) : [];
    return new UniqueViolation(typeof e.table === 'string' ? e.table : '', columns, { cause: error });
  }
  if (e?.code === '23503') return new MissingReference(typeof e.message === 'string' ? e.message : 'missing reference', { cause: error });
  return error;
}
