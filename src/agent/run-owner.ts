import { lowerRole, storedRole } from "../auth/role-order.ts";
import { isRole, type Caller } from "../auth/roles.ts";
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
  const recorded = storedRole(run.callerRole);
  if (run.callerKey === null) return { role: recorded, keyName: null, keyId: null };
  const key = await db.apiKey.findUnique({ where: { name: run.callerKey } });
  // An in-process caller names no stored key: the recorded caller stands.
  if (!key) return { role: recorded, keyName: run.callerKey, keyId: null };
  if (key.revokedAt || !isRole(key.role))
    throw new ApiError(
      "FORBIDDEN",
      `the API key that started agent run ${run.id} was revoked; the run cannot continue`,
    );
  return { role: lowerRole(recorded, key.role), keyName: key.name, keyId: key.id };
}
