import type { FailureLog } from "../failure-log.ts";
import { everyDuty, type Duty } from "./duty.ts";

/**
 * Fails, every `everyMs`, the parked runs whose interactions expired unanswered (safe on every instance at once).
 * Each failed tick is counted in `failures` (the database may be out).
 */
export function interactionExpiry(
  interactions: { expireDue(): Promise<unknown> },
  failures: FailureLog,
  everyMs: number,
): Duty {
  return everyDuty("interaction expiry", everyMs, () => {
    interactions
      .expireDue()
      .catch((e: Error) => failures.failed("warn", "expiring interactions failed", { error: e.message }));
  });
}
