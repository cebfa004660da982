import type { Db } from "./client.ts";

type Tx = Pick<Db, "$executeRawUnsafe">;

/** The advisory lock key of the run event log's writers (a text hashed by PostgreSQL). */
const WRITERS_KEY = "tai42:RunEvent";

/**
 * The benchmark's baseline only (`bench/scenarios/event-order.ts`): with `TAI_BENCH_EVENT_LOCK=exclusive` writers take
 * the lock exclusively, as every version before the settled order did, so that one run measures both designs.
 * Readers settle the same way either way. Never set it in a deployment: it serialises every instance's commits.
 */
const MODE = process.env.TAI_BENCH_EVENT_LOCK === "exclusive" ? "" : "_shared";

/** The SQL expression that registers the current transaction as a writer of the run event log. */
export const REGISTER_EVENT_WRITER_SQL = `pg_advisory_xact_lock${MODE}(hashtext('${WRITERS_KEY}'))`;

/**
 * Registers a transaction as a writer of the run event log before it draws any `seq`
 * (docs/run-lifecycle.md §9 "Sequence and commit order").
 *
 * On PostgreSQL a sequence value is drawn when a row is inserted, not when it commits:
 * two writers can commit seq 11 before seq 10, and a reader that saw 11 and stepped over
 * 10 would never deliver it. Writers are not serialised for that: each takes the log's
 * advisory lock in SHARED mode (shared holders never wait on one another), held until its
 * commit or rollback, and a reader that finds a gap waits until the writers registered at
 * that moment have ended ({@link EVENT_WRITERS_SQL}) before it treats a missing seq as one
 * that will never exist. SQLite has one writer at a time, so it needs nothing.
 *
 * Returns the statement to await inside an interactive transaction, before the event
 * insert, or null when the database needs none.
 */
export function registerEventWriter(db: Db, tx: Tx): ReturnType<Tx["$executeRawUnsafe"]> | null {
  if (!isPostgres(db)) return null;
  // pg_advisory_xact_lock_shared returns `void`, which the driver adapter cannot read as
  // a column: run it as a statement, not a query.
  return tx.$executeRawUnsafe(`SELECT ${REGISTER_EVENT_WRITER_SQL}`);
}

/**
 * The transactions registered as run event log writers right now, in this database: one
 * `virtualtransaction` id each (unique per transaction, unlike a pid, which runs many).
 * An int8 advisory key shows in `pg_locks` as its high and low 32 bits, `objsubid` 1.
 */
export const EVENT_WRITERS_SQL = `
SELECT l.virtualtransaction AS "writer"
FROM pg_locks l, (SELECT hashtext('${WRITERS_KEY}')::bigint AS k) key
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid::bigint = (key.k >> 32) & 4294967295 AND l.objid::bigint = key.k & 4294967295`;

/** Whether a client talks to PostgreSQL (both generated clients share one API). */
export function isPostgres(db: Db): boolean {
  return (db as unknown as { _activeProvider?: string })._activeProvider === "postgresql";
}
