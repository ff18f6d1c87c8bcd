/**
 * The data layer's typed errors (docs/architecture.md): the engines' error codes — SQLite's result codes,
 * PostgreSQL's SQLSTATEs — are read here and nowhere else. A statement that fails for a reason a caller can act on
 * is thrown as a DatabaseError of one `kind`; server/errors.ts maps each kind to HTTP in one place. The engine's
 * own code stays on the error (`code`) for logs.
 */

/**
 * - `unique`: a row with the same unique values exists;
 * - `foreignKey`: a referenced row does not exist (or a referencing one still does);
 * - `busy`: another writer holds the database, or a conflict still failed after the store's retries;
 * - `full`: no space left for the database (`remote`: on the database server, not this machine's disk);
 * - `range`: a value is out of range for the database (an overflowing expression in a client's `$filter`);
 * - `exhausted`: the database server is short of a resource for now (memory, connections).
 */
export type DatabaseErrorKind = 'unique' | 'foreignKey' | 'busy' | 'full' | 'range' | 'exhausted';

export class DatabaseError extends Error {
  override name = 'DatabaseError';
  constructor(
    readonly kind: DatabaseErrorKind,
    message: string,
    /** The engine's code (`SQLITE_BUSY`, `23505`, ...). */
    readonly code: string,
    /** For `full`: the space is the database server's, not this machine's. */
    readonly remote = false,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The kind an engine's error code means, if it is one a caller can act on. */
export function databaseErrorKind(code: unknown): DatabaseErrorKind | undefined {
  if (typeof code !== 'string') return undefined;
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
    case '23505':
      return 'unique';
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
    case '23503':
      return 'foreignKey';
    case 'SQLITE_BUSY':
    case '40001': // serialization_failure
    case '40P01': // deadlock_detected
      return 'busy';
    case 'SQLITE_FULL':
    case '53100': // disk_full
      return 'full';
  }
  if (/^22[0-9A-Z]{3}$/.test(code)) return 'range'; // data_exception
  if (/^53[0-9A-Z]{3}$/.test(code)) return 'exhausted'; // insufficient_resources
  return undefined;
}

/** `err` as a DatabaseError when its code is one of the kinds (its message and cause kept); otherwise `err` unchanged. */
export function asDatabaseError(err: unknown): unknown {
  if (err instanceof DatabaseError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const kind = databaseErrorKind(code);
  if (!kind) return err;
  return new DatabaseError(kind, (err as Error).message ?? String(code), code as string, /^\d/.test(code as string), { cause: err });
}

/** True when `err` is a DatabaseError of `kind` (or, not converted yet, an engine error meaning it). */
export function isDatabaseError(err: unknown, kind: DatabaseErrorKind): boolean {
  const typed = asDatabaseError(err);
  return typed instanceof DatabaseError && typed.kind === kind;
}
