import type { Db } from "../db/client.ts";
import { lowerRole, storedRole } from "./role-order.ts";
import { isRole, type Caller } from "./roles.ts";
import { isPrincipal } from "./token-claims.ts";

/** Who stored work records it was started by: the role it had then and the key's name (null: anonymous). */
export interface RecordedCaller {
  callerRole: string | null;
  callerKey: string | null;
}

/**
 * The caller stored work acts as when it goes on later (docs/security-model.md §1): an agent run continued, a queued,
 * re-driven or retried tool run executed, a schedule's tick. The one who started it, by key, never above the role
 * recorded nor the key's role now; `revoked` when the key was revoked since. A key name no stored key holds (an
 * in-process caller), and an access token's subject, keep the recorded caller.
 */
export async function callerNow(db: Db, recorded: RecordedCaller): Promise<Caller | "revoked"> {
  const role = storedRole(recorded.callerRole);
  if (recorded.callerKey === null) return { role, keyName: null, keyId: null };
  // An access token's subject: no token at hand to check again, so the recorded caller (docs/security-model.md §1.2).
  if (isPrincipal(recorded.callerKey)) return { role, keyName: recorded.callerKey, keyId: recorded.callerKey };
  const key = await db.apiKey.findUnique({ where: { name: recorded.callerKey } });
  if (!key) return { role, keyName: recorded.callerKey, keyId: null };
  if (key.revokedAt || !isRole(key.role)) return "revoked";
  return { role: lowerRole(role, key.role), keyName: key.name, keyId: key.id };
}
