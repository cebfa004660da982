import { ApiError } from "../errors.ts";
import { startedByKey, type RunOwnership } from "./ownership.ts";
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
  return startedByKey(scope.keyId, run);
}

/**
 * The run, when `caller` may see it; else NOT_FOUND, as for a run that does not exist. Cancelling a run follows the
 * same rule.
 */
export function requireVisibleRun<R extends RunOwnership>(caller: Caller, run: R | null | undefined, id: string): R {
  if (!run || !maySeeRun(caller, run)) throw new ApiError("NOT_FOUND", `no run with id "${id}"`);
  return run;
}

/**
 * The agent runs a caller may see, as a database query needs it: `all`, or the runs
 * started by one key, by name (`keyName`; null = the anonymous runs). Agent runs record
 * no tool tier, so only the ownership half of the rule applies (`isOwnerOrAdmin`).
 */
export type AgentRunScope = { all: true } | { all: false; keyName: string | null };

/** The scope of agent runs `caller` may see. */
export function agentRunScope(caller: Caller): AgentRunScope {
  if (isAdmin(caller.role)) return { all: true };
  return { all: false, keyName: caller.keyId === null ? null : caller.keyName };
}
