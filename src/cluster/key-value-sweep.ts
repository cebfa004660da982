import type { Db } from "../db/client.ts";
import { deleteExpired } from "../db/expiring-store.ts";
import type { FailureLog } from "../failure-log.ts";
import { everyDuty, type Duty } from "./duty.ts";

/**
 * Deletes, every `everyMs`, the expired key-value rows. They read as absent already; deleting them keeps the table
 * small (an MCP `initialize` that never comes back leaves one for a day). Each failed tick is counted in `failures`.
 */
export function keyValueSweep(db: Db, failures: FailureLog, everyMs: number): Duty {
  return everyDuty("expired key-value sweep", everyMs, () => {
    deleteExpired(db).catch((e: Error) =>
      failures.failed("warn", "deleting expired key-value rows failed", { error: e.message }),
    );
  });
}
