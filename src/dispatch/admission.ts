import { ApiError, describeIssues, type Issue } from "../errors.ts";
import type { Logger } from "../log.ts";
import { unstorableIssues } from "../db/storable.ts";
import { prepareInput } from "../registry/entries/prepare-input.ts";
import { bakedOverrides } from "../registry/entries/preset-entry.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import { newRun, seesCuratedSurface, type RunRecord } from "./run-record.ts";
import type { RunRequest } from "./request.ts";

/*
 * The checks of admission (docs/run-lifecycle.md §2, steps 1–3) that need nothing of the dispatcher: the run a request
 * starts as, the input's validation and the messages of a refusal. A queued run executed elsewhere passes them again.
 */

/** The entry's checks of an input: an object, storable, no baked key overridden, then its schema and own parsing. */
export function validateInput(
  entry: SurfaceEntry,
  input: unknown,
): { ok: true; value: unknown } | { ok: false; issues: Issue[] } {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return { ok: false, issues: [{ path: "", message: "must be an object" }] };
  const unstorable = unstorableIssues(input);
  if (unstorable.length) return { ok: false, issues: unstorable };
  const overridden = bakedOverrides(
    input,
    entry.bakedKeys ?? [],
    `is baked by preset "${entry.name}" and cannot be overridden`,
  );
  if (overridden.length) return { ok: false, issues: overridden };
  return prepareInput(entry, input as Record<string, unknown>);
}

/** The run a request starts as, before anything about its entry is known. */
export function requestedRun(req: RunRequest, input: unknown): RunRecord {
  const { caller } = req;
  return newRun({
    tool: req.tool,
    input,
    door: req.door,
    callerRole: caller.role,
    callerKey: caller.keyName,
    callerKeyId: caller.keyId,
    parentRunId: req.parentRunId,
  });
}

/** Why no entry runs a request: its name is not on the surface its door sees. */
export function notFound(req: RunRequest): string {
  return seesCuratedSurface(req.door)
    ? `no tool named "${req.tool}" on the surface`
    : `no tool named "${req.tool}" is registered`;
}

/** The message and details of a refused input; a secret-tier entry's issues name only their paths. */
export function invalidInput(name: string, issues: Issue[], redact: boolean): [string, { issues: Issue[] }] {
  return [
    `invalid input for "${name}": ${redact ? "see issues" : describeIssues(issues)}`,
    { issues: redact ? issues.map((i) => ({ path: i.path, message: "is invalid" })) : issues },
  ];
}

/**
 * A dispatch whose caller's connection closed before its run was stored: not run (a balancer may resend it), logged.
 * Checked before admission control too, so a woken instance's backlog of gone callers is said as such, not shed.
 */
export function notRun(log: Pick<Logger, "info">, req: Pick<RunRequest, "tool">): ApiError {
  log.info("not run: the caller's connection closed before the run was stored", { tool: req.tool });
  return new ApiError("UNAVAILABLE", "the caller's connection closed before the run was stored; nothing was run");
}
