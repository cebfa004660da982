import { queuedTicket, releaseTicket } from "./run-limits.ts";
import type { Caller } from "../auth/roles.ts";
import { REDACTED } from "../auth/tiers.ts";
import { ToolError, type ErrorKind } from "../errors.ts";
import type { ToolContext } from "../tools/definition.ts";
import { untilStored } from "./run-follow.ts";
import { execute } from "./run-execute.ts";
import { vanished } from "./executed-entry.ts";
import type { RunSteps } from "./run-steps.ts";
import type { RunRecord } from "./run-record.ts";
import { both, failure } from "./run-settle.ts";
import type { RunOutcome } from "./request.ts";

/**
 * Resumes a PARKED run whose interactions are all answered, on this instance: the
 * entry's `resume` (default: the answer itself) runs through the same settle path.
 * If another instance is already resuming it, waits for that outcome.
 */
export async function resume(steps: RunSteps, runId: string): Promise<RunOutcome> {
  const { deps } = steps;
  const ready = await deps.interactions.readyToResume(runId);
  if (!ready || !(await deps.runs.claimParked(runId, deps.instanceId))) return both(await steps.awaitFinal(runId));
  const run = (await deps.runs.get(runId))!;
  await deps.interactions.consume(ready.ids);
  const entry = deps.surface.base(run.tool);
  const recorded: Caller = { role: run.callerRole as Caller["role"], keyName: run.callerKey, keyId: run.callerKeyId };
  // The caller as it is now (docs/security-model.md §1.4): a key revoked or expired while the run was parked does not
  // resume it, and its scope now holds for what the resumed body runs.
  const now = await Promise.resolve()
    .then(() => deps.callerNow?.(run) ?? recorded)
    .catch(() => null);
  const caller = now === null || now === "revoked" ? recorded : now;
  const controller = new AbortController();
  const redact = run.input === REDACTED;
  const refused = refusedResume(run, now);
  // The entry may have left the surface while the run was parked.
  const { entry: executed, body } = refused
    ? { entry: entry ?? vanished(run.tool).entry, body: refused }
    : entry
      ? {
          entry,
          body: async (ctx: ToolContext) =>
            entry.resume ? entry.resume(ready.state, ready.answers, ctx) : defaultResume(ready.answers),
        }
      : vanished(run.tool);
  const trace = deps.tracer?.startRun({
    tool: run.tool,
    door: run.door,
    caller,
    parentRunId: run.parentRunId ?? undefined,
  });
  // A resumed body is under its tool's limits again: it takes its slots (a park gave them back); its breakers hear it.
  const limits = entry ? queuedTicket(deps, entry) : undefined;
  const done = execute(steps, executed, run, body, {
    caller,
    controller,
    redact,
    resumed: true,
    trace,
    limits,
  }).finally(() => releaseTicket(limits));
  if (trace)
    done.then(
      (o) => trace.end(o.run),
      (e: unknown) => trace.fail(e),
    );
  done.then(
    (o) => steps.parkEnded(o.run),
    () => {},
  );
  steps.inflight.add(runId, controller, done, untilStored(steps.settle, runId));
  return done;
}

/** The body of a resume its caller may no longer run: the key is gone, or could not be read. Null: it may. */
function refusedResume(run: RunRecord, now: Caller | "revoked" | null): (() => never) | null {
  if (now === null)
    return () => {
      throw new ToolError(`the key that dispatched run ${run.id} could not be read; it did not resume`, {
        kind: "UNAVAILABLE",
      });
    };
  if (now === "revoked")
    return () => {
      throw new ToolError(
        `the API key "${run.callerKey}" that dispatched run ${run.id} was revoked or has expired; the run did not resume`,
        { kind: "PERMISSION_DENIED" },
      );
    };
  return null;
}

/**
 * Ends a PARKED run without resuming it (cancelled, or an interaction expired); null
 * when it was no longer parked.
 */
export async function endParked(
  steps: RunSteps,
  runId: string,
  status: "CANCELLED" | "FAILED",
  message: string,
  kind: ErrorKind,
): Promise<RunRecord | null> {
  const { deps, settle } = steps;
  if (!(await deps.runs.claimParked(runId, deps.instanceId))) return null;
  const run = (await deps.runs.get(runId))!;
  await deps.interactions.cancelOpen(runId);
  Object.assign(run, failure(kind, message), { status, finishedAt: new Date().toISOString() });
  const ended = await deps.runs.finish(settle.snapshot(run, run.input === REDACTED), null);
  settle.publish(ended);
  steps.parkEnded(ended.run);
  return ended.run;
}

/** Without a `resume`, a resumed run's output is the answer (or, for several, answers by id). */
function defaultResume(answers: Record<string, unknown>): unknown {
  const values = Object.values(answers);
  return values.length === 1 ? values[0] : answers;
}
