import type pg from "pg";

/**
 * Runs `fn` in one transaction on one pooled connection, committed if it resolves and rolled back if it throws.
 *
 * The pool takes its own 'error' listener off a connection it hands out. A backend ended between two statements of
 * the transaction (a terminated session, a database restart) then emits 'error' on the client with no query to fail,
 * which unheard is an uncaught exception that ends the process: the listener here hears it, and the connection is
 * not reused. The statement that follows fails with the same cause and the batch is retried by its writer.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failed = true;
  const onError = () => {
    failed = true;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    failed = false;
    return result;
  } finally {
    if (failed) await client.query("ROLLBACK").catch(() => {});
    client.removeListener("error", onError);
    // A connection whose rollback failed, or that failed under the transaction, is not reused.
    client.release(failed);
  }
}
