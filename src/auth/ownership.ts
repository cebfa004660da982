import { ApiError } from "../errors.ts";
import type { Caller } from "./roles.ts";
import { answersInteractions, isAdmin } from "./tiers.ts";

/**
 * "Owner or admin" (docs/security-model.md §1, §2): the one rule for who may use what a
 * caller started or created. Every door and service asks it here.
 */

/** Who started a run, as stored with it. */
export interface RunOwnership {
  /** The tier of the tool run; null or absent when unknown. */
  tier?: string | null;
  /** The root caller's key id; null when anonymous (or not recorded). */
  callerKeyId?: string | null;
  /** The root caller's key name; null when anonymous. */
  callerKey?: string | null;
}

/**
 * Whether the run was started by the key `keyId` (null: anonymously). A run of a key
 * whose id was never recorded is not anonymous: it carries the key's name.
 */
export function startedByKey(keyId: string | null, run: RunOwnership): boolean {
  if (keyId === null) return !run.callerKeyId && !run.callerKey;
  return run.callerKeyId === keyId;
}

/**
 * Whether `caller` started the run or is an ADMIN: the ownership half of run visibility,
 * alone for records whose tier is not a tool tier (agent runs, their threads and forks).
 */
export function isOwnerOrAdmin(caller: Caller, run: RunOwnership): boolean {
  if (isAdmin(caller.role)) return true;
  if (caller.keyId === null) return startedByKey(null, run);
  // Agent runs record the key by name; names are unique and never reused.
  return run.callerKeyId ? run.callerKeyId === caller.keyId : run.callerKey === caller.keyName;
}

/** How a thread records its owner: the key name, or "" for the anonymous caller. */
export function threadOwnerKey(caller: Caller): string {
  return caller.keyName ?? "";
}

/**
 * Whether `caller` may use a thread whose owner is recorded as `owner` ({@link threadOwnerKey}; null: none recorded).
 */
export function mayUseThread(caller: Caller, owner: string | null): boolean {
  return owner === null || isAdmin(caller.role) || owner === threadOwnerKey(caller);
}

/** FORBIDDEN unless `caller` is an ADMIN (keys, manifests, skills, response formats, the schema's admin fields). */
export function requireAdmin(caller: Caller, what: string): Caller {
  if (!isAdmin(caller.role)) throw new ApiError("FORBIDDEN", `only an ADMIN may ${what} (you are ${caller.role})`);
  return caller;
}

/**
 * Whether `caller` may answer an interaction (addressed `to`) of a run it may see: any
 * role that answers interactions, and a READER only a question addressed to it as the
 * caller of a run it started (an agent's `ask_caller`, docs/security-model.md §2).
 */
export function mayAnswer(caller: Caller, to: string, run: RunOwnership): boolean {
  return answersInteractions(caller.role) || (to === "caller" && isOwnerOrAdmin(caller, run));
}
