import { isRedacted } from "../auth/tiers.ts";
import type { RunRecord } from "./run-record.ts";
import type { RunOutcome } from "./request.ts";

/**
 * What the caller who dispatched a run receives in the answer to its own request, on
 * every door (GraphQL `dispatch`, MCP `tools/call`, `tai tools run`): the record as
 * stored, except that a secret-tier run's result (its content, data and details) is the
 * one its body returned (docs/security-model.md §3). That answer is the only place it
 * leaves the process: it is never stored, published, logged or served again (`run`,
 * `runs`, subscriptions and spans keep "[redacted]"), and a re-issued idempotency key
 * answers the stored record. Its input, error message and attempts stay as stored.
 */
export function callerAnswer({ run, output }: RunOutcome): RunRecord {
  // The stored outcome is another one (another instance ended the run first): it stands.
  if (
    run === output ||
    run.tier === null ||
    !isRedacted(run.tier) ||
    output.id !== run.id ||
    output.status !== run.status
  )
    return run;
  return { ...run, content: output.content, data: output.data, details: output.details };
}
