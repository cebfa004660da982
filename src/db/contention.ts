import { ApiError } from "../errors.ts";

/**
 * How long a query or transaction waits for a pooled connection before it gives up, and
 * how long an interactive transaction may run. One number for every wait, so that the
 * pool (`pg`'s `connectionTimeoutMillis`) and Prisma's transaction manager (`maxWait`)
 * fail together, as one typed, retryable UNAVAILABLE, instead of Prisma's 2 s default
 * failing first with a masked error while the pool would still have served the request.
 */
export const DB_WAIT_MS = 10_000;

/** Options of every interactive transaction (`$transaction(fn, TX)`). */
export const TX = { maxWait: DB_WAIT_MS, timeout: 2 * DB_WAIT_MS } as const;

// Prisma's codes: P2034 a write conflict or deadlock (PostgreSQL 40001/40P01); P2028 the
// transaction manager gave up (no connection in time, or the transaction timed out);
// P1001/P1017/P1008 unreachable, closed, timed out; P2024 a pool timeout; P2037 too many
// connections.
const CONFLICT_CODES = new Set(["P2034", "40001", "40P01"]);
const UNAVAILABLE_CODES = new Set([
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "P2028",
  "P1001",
  "P1002",
  "P1008",
  "P1017",
  "P2024",
  "P2037",
  "55P03",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "53400",
  "08000",
  "08001",
  "08003",
  "08006",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
]);
// A database that refuses writes: SQLite's full disk (or PRAGMA max_page_count reached) and
// read-only file; PostgreSQL's disk_full (53100) and read_only_sql_transaction (25006, a hot
// standby or default_transaction_read_only). SQLite's extended codes (SQLITE_READONLY_DBMOVED …)
// start with the primary one.
const REFUSED_CODES = /^(SQLITE_FULL|SQLITE_READONLY\w*|53100|25006)$/;
const REFUSED_TEXT =
  /database or disk is full|attempt to write a readonly database|No space left on device|read-only transaction/i;

/** How long a client is asked to wait before sending again a write the database refused (full disk, read-only). */
export const REFUSED_RETRY_AFTER_SECONDS = 5;

// What pg's pool and better-sqlite3 throw without a code Prisma knows.
const UNAVAILABLE_TEXT =
  /timeout exceeded when trying to connect|Connection terminated|database is locked|SQLITE_BUSY|Unable to start a transaction in the given time|Transaction already closed/i;

/** Every code along an error's cause chain and in Prisma's driver-adapter metadata. */
function codesOf(error: unknown): { codes: string[]; text: string } {
  const codes: string[] = [];
  let text = "";
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number) => {
    if (!e || typeof e !== "object" || seen.has(e) || depth > 6) return;
    seen.add(e);
    const o = e as {
      code?: unknown;
      originalCode?: unknown;
      kind?: unknown;
      message?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    for (const c of [o.code, o.originalCode, o.kind]) if (typeof c === "string") codes.push(c);
    if (typeof o.message === "string") text += ` ${o.message}`;
    visit(o.cause, depth + 1);
    visit(o.meta?.driverAdapterError, depth + 1);
  };
  visit(error, 0);
  return { codes, text };
}

/**
 * The typed, retryable API error for a failure caused by contention or a database that
 * is briefly out of reach, or null for any other error: CONFLICT when two writers
 * collided (send the request again), UNAVAILABLE when no connection or lock came in time,
 * or when the database refuses writes (a full disk, a read-only database; with a retry time).
 * The message says what to do and names no driver.
 */
export function contentionError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return null;
  const { codes, text } = codesOf(error);
  if (codes.some((c) => REFUSED_CODES.test(c)) || REFUSED_TEXT.test(text))
    return new ApiError(
      "UNAVAILABLE",
      "the database refuses writes (its disk is full or it is read-only); nothing was stored; send the request again once it accepts writes",
      [],
      {
        retryable: true,
        retryAfterSeconds: REFUSED_RETRY_AFTER_SECONDS,
      },
    );
  if (codes.some((c) => CONFLICT_CODES.has(c)) || codes.includes("TransactionWriteConflict"))
    return new ApiError("CONFLICT", "the write collided with a concurrent one and was rolled back; send it again", [], {
      retryable: true,
    });
  if (
    codes.some((c) => UNAVAILABLE_CODES.has(c)) ||
    codes.some((c) =>
      ["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"].includes(c),
    ) ||
    UNAVAILABLE_TEXT.test(text)
  )
    return new ApiError(
      "UNAVAILABLE",
      `the database is busy or out of reach (no connection or lock within ${DB_WAIT_MS / 1000} s); send the request again`,
      [],
      {
        retryable: true,
      },
    );
  return null;
}

/** Rethrows `error` as its typed contention error when it is one, else as it is. */
export function rethrowContention(error: unknown): never {
  throw contentionError(error) ?? error;
}
