import type { Caller } from "../auth/roles.ts";
import { callerNow } from "../auth/stored-caller.ts";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors.ts";
import type { AgentRunRecord } from "./agent-runs.ts";

/**
 * The caller a stored run acts as when it goes on (docs/agent-stream.md §7.1): the one who
 * started it, by key, never above the role recorded on the run nor the key's role now. A
 * revoked key refuses with FORBIDDEN.
 */
export async function originalCaller(
  db: Db,
  run: Pick<AgentRunRecord, "id" | "callerRole" | "callerKey">,
): Promise<Caller> {
  const caller = await callerNow(db, run);
  if (caller === "revoked")
    throw new ApiError(
      "FORBIDDEN",
      `the API key that started agent run ${run.id} was revoked; the run cannot continue`,
    );
  return caller;
}
