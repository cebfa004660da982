import { TIERS, type Caller, type Tier } from "./roles.ts";
import { isAdmin, mayRun } from "./tiers.ts";

/**
 * Run visibility (docs/security-model.md §2): the one rule every read door applies.
 *
 * - An ADMIN sees every run.
 * - Any other caller sees a run only when it started it (the same key, by key id; an
 *   anonymous caller, a run started anonymously) **and** the run's tier is one its role
 *   may run. A run whose tier is unknown (stored before tiers were recorded) is treated
 *   as the most restrictive tier: only an ADMIN sees it.
 *
 * A hidden run does not exist for the caller: doors answer null / NOT_FOUND, never
 * FORBIDDEN.
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
 * The runs a caller may see, as a database query needs it: `all`, or the runs of one
 * key (`keyId`; null = the anonymous runs) within `tiers`.
 */
export type RunScope = { all: true } | { all: false; keyId: string | null; tiers: Tier[] };

/** The scope of runs `caller` may see. */
export function runScope(caller: Caller): RunScope {
  if (isAdmin(caller.role)) return { all: true };
  return { all: false, keyId: caller.keyId, tiers: TIERS.filter((t) => mayRun(caller.role, t)) };
}

/** Whether `caller` may see a run started as `run` records. */
export function maySeeRun(caller: Caller, run: RunOwnership): boolean {
  const scope = runScope(caller);
  if (scope.all) return true;
  if (!run.tier || !(scope.tiers as readonly string[]).includes(run.tier)) return false;
  return startedBy(scope.keyId, run);
}

/**
 * Whether the run was started by the key `keyId` (null: anonymously). A run of a key
 * whose id was never recorded is not anonymous: it carries the key's name.
 */
function startedBy(keyId: string | null, run: RunOwnership): boolean {
  if (keyId === null) return !run.callerKeyId && !run.callerKey;
  return run.callerKeyId === keyId;
}

/**
 * The agent runs a caller may see, as a database query needs it: `all`, or the runs
 * started by one key, by name (`keyName`; null = the anonymous runs). Agent runs record
 * no tool tier, so only the ownership half of the rule applies ({@link startedRun}).
 */
export type AgentRunScope = { all: true } | { all: false; keyName: string | null };

/** The scope of agent runs `caller` may see. */
export function agentRunScope(caller: Caller): AgentRunScope {
  if (isAdmin(caller.role)) return { all: true };
  return { all: false, keyName: caller.keyId === null ? null : caller.keyName };
}

/**
 * Whether `caller` started a run that records no tier (agent runs): the ownership half
 * of the rule, for records whose tier is not a tool tier. ADMIN: always.
 */
export function startedRun(caller: Caller, run: RunOwnership): boolean {
  if (isAdmin(caller.role)) return true;
  if (caller.keyId === null) return !run.callerKeyId && !run.callerKey;
  // Agent runs record the key by name; names are unique and never reused.
  return run.callerKeyId ? run.callerKeyId === caller.keyId : run.callerKey === caller.keyName;
}
