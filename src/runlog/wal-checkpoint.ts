import type Database from "better-sqlite3";

/**
 * How often, and how many times, a checkpoint another connection kept busy is tried again; also the least time between
 * two checkpoints.
 */
const RETRY_MS = 1000;
const MAX_TRIES = 60;

/**
 * Returns a request for a truncating WAL checkpoint on `database`, made after the run log
 * rewrote rows to scrub a value (`rescrub.ts`): the old frames in the -wal file still hold
 * the bytes the rewrite replaced until a checkpoint copies the pages back and the file is
 * truncated (with `secure_delete`, freed cells in the main file are zeroed). It never
 * blocks dispatch: it runs after the current turn (at most once a second: under a stream
 * of rewrites it batches them), with the busy timeout off (a checkpoint a reader keeps
 * busy returns at once), and is tried again every second while busy, up to a minute;
 * requests made meanwhile join the pending one.
 */
export function walCheckpoints(database: Database.Database): () => void {
  let pending = false;
  let tries = 0;
  let last = 0;
  const attempt = () => {
    last = Date.now();
    let busy: boolean;
    try {
      const timeout = database.pragma("busy_timeout", { simple: true }) as number;
      database.pragma("busy_timeout = 0");
      try {
        // [busy, wal frames, frames checkpointed]; busy is 1 when a reader or writer held it back.
        busy =
          database.inTransaction || (database.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[])[0]?.busy !== 0;
      } finally {
        database.pragma(`busy_timeout = ${Number(timeout)}`);
      }
    } catch {
      // Closed or locked: the next rescrub asks again.
      busy = database.open;
    }
    if (busy && ++tries < MAX_TRIES) setTimeout(attempt, RETRY_MS).unref();
    else {
      pending = false;
      tries = 0;
    }
  };
  return () => {
    if (pending) return;
    pending = true;
    const wait = last + RETRY_MS - Date.now();
    if (wait > 0) setTimeout(attempt, wait).unref();
    else setImmediate(attempt);
  };
}
