import type { Db } from "./client.ts";

type Tx = Pick<Db, "$executeRawUnsafe">;

/**
 * Serializes appends to an event log whose `seq` is an autoincrement, so that sequence
 * order is commit order and a reader resuming `afterSeq` never skips an event.
 *
 * On PostgreSQL a sequence value is drawn when a row is inserted, not when it commits:
 * two writers can commit seq 11 before seq 10, and a reader that saw 11 and resumes
 * after it never sees 10 (measured: 2 of 600 events lost by a polling reader with two
 * instances writing). Taking a transaction-scoped advisory lock right before the insert
 * means any uncommitted event is newer than every committed one. SQLite has one writer
 * at a time, so it needs nothing. Put this as late as possible in the transaction (just
 * before the event insert): it is held until commit.
 *
 * Returns the statement to add to a `$transaction([...])` batch or to await inside an
 * interactive transaction, or null when the database needs none.
 */
export function lockEventLog(db: Db, tx: Tx, log: string): ReturnType<Tx["$executeRawUnsafe"]> | null {
  if (!isPostgres(db)) return null;
  // pg_advisory_xact_lock returns `void`, which the driver adapter cannot read as a
  // column: run it as a statement, not a query.
  return tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext('tai42:${log.replace(/[^A-Za-z0-9_]/g, "")}'))`);
}

/** Whether a client talks to PostgreSQL (both generated clients share one API). */
export function isPostgres(db: Db): boolean {
  return (db as unknown as { _activeProvider?: string })._activeProvider === "postgresql";
}
