import { lowerRole, storedRole } from "../auth/role-order.ts";
import { isRole, type Caller } from "../auth/roles.ts";
import { isPrincipal } from "../auth/token-claims.ts";
import type { Db } from "../db/client.ts";
import type { ScheduleRecord } from "./schedule-record.ts";

/** Why a tick does not fire: the key that wrote the schedule is revoked, or deleted. */
export type KeyGone = { gone: "revoked" | "deleted"; keyName: string | null };

/**
 * The caller a tick runs as (docs/run-lifecycle.md §11.7), read again at each tick: the one who wrote the schedule,
 * never above the role recorded on it nor its key's role now. A schedule written in-process (no key id) keeps its
 * recorded caller; one whose key is revoked or deleted has no caller: the tick does not fire.
 */
export async function tickCaller(
  db: Db,
  s: Pick<ScheduleRecord, "callerRole" | "callerKey" | "callerKeyId">,
): Promise<Caller | KeyGone> {
  const recorded = storedRole(s.callerRole);
  if (s.callerKeyId === null) return { role: recorded, keyName: s.callerKey, keyId: null };
  // An access token's subject: no token is at hand to check, so its recorded caller (docs/security-model.md §1.2).
  if (isPrincipal(s.callerKeyId)) return { role: recorded, keyName: s.callerKeyId, keyId: s.callerKeyId };
  const key = await db.apiKey.findUnique({ where: { id: s.callerKeyId } });
  if (!key) return { gone: "deleted", keyName: s.callerKey };
  if (key.revokedAt || !isRole(key.role)) return { gone: "revoked", keyName: key.name };
  return { role: lowerRole(recorded, key.role), keyName: key.name, keyId: key.id };
}
