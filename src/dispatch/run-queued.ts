import { isRole, ROLES, type Caller } from "../auth/roles.ts";
import { inScope, outOfScope } from "../auth/key-scope.ts";
import { isRedacted, mayRun } from "../auth/tiers.ts";
import { ToolError, type ErrorKind } from "../errors.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import { writeOnlyStrings } from "../tools/write-only.ts";
import { notFound, invalidInput, validateInput } from "./admission.ts";
import type { DispatchDeps, RunOutcome, RunRequest } from "./request.ts";
import { seesCuratedSurface, type RunEventRecord, type RunRecord } from "./run-record.ts";
import { endedQueued, requeued, whyNotReplayable } from "./run-redrive.ts";
import { FENCED } from "./run-execute.ts";
import { both, failure } from "./run-settle.ts";
import type { RunSteps } from "./run-steps.ts";
import type { RunStore } from "./run-store.ts";
import type { RunTransitions, StoredReplay } from "./run-transitions.ts";
import { appliedLimits, queuedSlots, releaseTicket, type LimitTicket } from "./run-limits.ts";

/** What executing a queued run needs of the dispatcher: its lookup and its launch of a stored RUNNING run. */
export interface Launcher {
  steps: RunSteps;
  moves: RunTransitions;
  /** True once the dispatcher drains: a job taken now leaves its run QUEUED for another instance. */
  closing(): boolean;
  resolve(req: RunRequest): Promise<SurfaceEntry | undefined>;
  launch(
    entry: SurfaceEntry,
    run: RunRecord,
    value: unknown,
    req: RunRequest,
    limits?: LimitTicket,
  ): Promise<RunOutcome>;
}

/** The caller a stored run was dispatched by (its role, key name and key id are on the run). */
export function callerOf(run: RunRecord): Caller {
  // A role the record no longer names runs as the least-privileged one (ROLES is ordered from it up).
  const role = isRole(run.callerRole) ? run.callerRole : ROLES[0];
  return { role, keyName: run.callerKey, keyId: run.callerKeyId };
}

/**
 * Takes a QUEUED run for this instance (QUEUED → RUNNING, RUN_STARTED), with its stored dispatch options: one read,
 * then the claim as a job of the run log's group commit, a compare-and-set on the run's status (docs/run-lifecycle.md
 * §11.2). One claimant wins; null for the others and for a run no longer QUEUED.
 */
export async function claimQueued(
  runs: RunStore,
  runId: string,
  instanceId: string,
  before?: (run: RunRecord) => Promise<boolean>,
): Promise<{ started: RunEventRecord; replay: StoredReplay } | null> {
  const stored = await runs.withReplay(runId);
  // A synchronous dispatch's run waiting for its slots belongs to its request (docs/flow-control.md §3).
  if (stored?.run.status !== "QUEUED" || stored.replay.syncWait) return null;
  if (before && !(await before(stored.run))) return null;
  const started = await runs.claim({ ...stored.run, status: "RUNNING" }, instanceId);
  return started && { started, replay: stored.replay };
}

/** Ends a QUEUED run CANCELLED (RUN_FINISHED); null when it was no longer queued. */
export function cancelQueued(moves: RunTransitions, runId: string): Promise<RunEventRecord | null> {
  const end = { status: "CANCELLED", kind: "CANCELLED", message: "the run was cancelled while queued" } as const;
  return moves.move(runId, { status: "QUEUED" }, (run) => endedQueued(run, end));
}

/**
 * Executes the queued run `runId` here (docs/run-lifecycle.md §11.2): claimed, checked again against the surface this
 * instance has now (its entry, its tier, its input), then executed as its caller with its stored options. Resolves
 * when the run has settled (or another instance claimed it); never rejects for the run's own failure.
 */
export async function executeQueued(x: Launcher, runId: string): Promise<void> {
  if (x.closing()) return;
  const { deps, settle } = x.steps;
  if (!(await staleBodyEnded(x, runId))) return;
  let slots: LimitTicket | null = null;
  const claimed = await claimQueued(x.moves.runs, runId, deps.instanceId, async (run) => {
    const taken = await slotsFor(x, run);
    slots = taken || null;
    return taken !== false;
  }).catch((e: unknown) => {
    // A claim that throws (the database) leaves the run QUEUED for a later try: its slots go back now.
    releaseTicket(slots);
    throw e;
  });
  if (!claimed) return releaseTicket(slots);
  const { started, replay } = claimed;
  settle.publish(started);
  const run = started.run;
  // A run refused once claimed gives back the slots it waited for.
  const refuse = (kind: ErrorKind, message: string, details?: unknown) =>
    releaseTicket(slots) ??
    settle.finish(
      { ...run, ...failure(kind, message), details: details ?? null, finishedAt: new Date().toISOString() },
      null,
      false,
      deps.log,
    );
  // The caller as it is now: a key revoked since the run was queued does not run it (docs/security-model.md §1).
  const caller = await Promise.resolve()
    .then(() => deps.callerNow?.(run) ?? callerOf(run))
    .catch(() => null);
  if (caller === null)
    return void (await refuse(
      "UNAVAILABLE",
      `the key that dispatched run ${run.id} could not be read; it did not run`,
    ));
  if (caller === "revoked")
    return void (await refuse(
      "PERMISSION_DENIED",
      `the API key "${run.callerKey}" that dispatched run ${run.id} was revoked or has expired; the run did not execute`,
    ));
  const req: RunRequest = {
    tool: run.tool,
    input: run.input,
    caller,
    door: run.door,
    ...(replay?.idempotencyKey ? { idempotencyKey: replay.idempotencyKey } : {}),
    ...(replay?.timeoutSeconds ? { timeoutSeconds: replay.timeoutSeconds } : {}),
  };
  const entry = await x.resolve(req);
  if (!entry) return void (await refuse("NOT_FOUND", notFound(req)));
  if (!mayRun(req.caller.role, entry.tier))
    return void (await refuse(
      "PERMISSION_DENIED",
      `role ${req.caller.role} may not run ${entry.tier}-tier tool "${entry.name}"`,
    ));
  if (!inScope(req.caller, entry.name))
    return void (await refuse("PERMISSION_DENIED", outOfScope(req.caller, entry.name)));
  if (isRedacted(entry.tier))
    return void (await refuse("INVALID_INPUT", `"${entry.name}" became secret-tier: its stored input cannot be run`));
  if (writeOnlyStrings(entry.inputSchema, run.input).length)
    return void (await refuse(
      "INVALID_INPUT",
      `"${entry.name}" now declares a secret input: its stored input cannot be run`,
    ));
  if (!replay?.replayable)
    return void (await refuse("INVALID_INPUT", `the stored input of run ${run.id} is not the input it was given`));
  const prepared = validateInput(entry, run.input);
  if (!prepared.ok) return void (await refuse("INVALID_INPUT", ...invalidInput(entry.name, prepared.issues, false)));
  run.tier = entry.tier;
  await x.launch(entry, run, prepared.value, req, slots ?? undefined).catch(() => {});
}

/**
 * The concurrency slots a QUEUED run needs, taken before its claim so it stays QUEUED while it waits for them
 * (docs/flow-control.md §3): null when no cap applies, false when this instance began to stop first.
 */
async function slotsFor(x: Launcher, run: RunRecord): Promise<LimitTicket | null | false> {
  const { flow, surface } = x.steps.deps;
  if (!flow) return null;
  // The surface as this instance has it (no version check: the claim's own lookup makes one).
  const snapshot = surface.snapshot();
  const entry = seesCuratedSurface(run.door) ? snapshot.resolve(run.tool) : snapshot.base(run.tool);
  const applied = entry ? appliedLimits(snapshot, entry) : [];
  return queuedSlots(flow, applied, callerOf(run), run.input, () => x.closing());
}

/** How long a claim waits for this instance's own stale body of the run to end once aborted. */
const STALE_BODY_MS = 5000;

/**
 * Whether no body of `runId` from before its re-drive still runs here (docs/run-lifecycle.md §11.4). An instance
 * declared gone that wakes may be handed the job of its own re-driven run: its old body would pass every owner fence
 * beside the new one. It is aborted first, and the claim waits for it to end; one that does not end within
 * STALE_BODY_MS leaves the run QUEUED, for another instance or the next sweep of waiting runs.
 */
async function staleBodyEnded(x: Launcher, runId: string): Promise<boolean> {
  const stale = x.steps.inflight.get(runId);
  if (!stale) return true;
  // A synchronous dispatch's run waiting here for its slots is its request's (docs/flow-control.md §3), not stale.
  if ((await x.moves.replayOf(runId))?.syncWait) return false;
  stale.controller.abort(new ToolError(FENCED, { kind: "CANCELLED" }));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([stale.held, new Promise((r) => (timer = setTimeout(r, STALE_BODY_MS)))]);
  clearTimeout(timer);
  if (x.steps.inflight.get(runId) !== stale) return true;
  x.steps.deps.log.warn("a re-driven run's earlier body still runs here; the run is left queued", { runId });
  return false;
}

/**
 * Hands a QUEUED run to the queue; one it does not take now waits for the sweep of waiting runs
 * (docs/run-lifecycle.md §11.3).
 */
export async function queueRun(deps: Pick<DispatchDeps, "queue" | "log">, runId: string): Promise<void> {
  await deps.queue?.enqueue(runId).catch((e: Error) =>
    deps.log.warn("a queued run could not be handed to the queue now; it waits for the next sweep", {
      runId,
      error: e.message,
    }),
  );
}

/** A background run stored QUEUED: handed to the queue, answered at once. */
export async function queued({ deps, settle }: RunSteps, run: RunRecord): Promise<RunOutcome> {
  settle.forget(run.id);
  await queueRun(deps, run.id);
  return both(run);
}

/** Publishes a transition's event (and queues its run when `queue`); resolves with the run as it now is. */
export async function published(
  deps: Pick<DispatchDeps, "queue" | "log" | "bus">,
  ev: RunEventRecord,
  queue: boolean,
): Promise<RunRecord> {
  deps.bus.publish("runEvent", ev);
  if (queue) await queueRun(deps, ev.runId);
  return ev.run;
}

/**
 * Hands back the runs `ids` held here at the shutdown deadline (docs/run-lifecycle.md §11.6): each that re-drive would
 * re-run becomes QUEUED again (its cut attempt recorded), is stopped here at once (`stop`), then published and queued
 * for another instance. Stopping each as soon as it is handed back keeps short the instant in which its body still
 * runs here while another instance may already execute it (safe only because the tool claims idempotency).
 */
export async function handBack(deps: DispatchDeps, ids: string[], stop: (id: string) => void): Promise<void> {
  let back = 0;
  for (const id of ids) {
    const replay = await deps.moves.replayOf(id).catch(() => null);
    const reason = `handed back: the instance ${deps.instanceId} shut down before the run ended`;
    const ev = await deps.moves
      .move(id, { status: "RUNNING", instanceId: deps.instanceId }, (run) =>
        // A hand-back counts as a re-drive: a run that outlasts every grace is not restarted without end.
        whyNotReplayable(run, replay) === null ? requeued(run, reason, (replay?.redrives ?? 0) + 1) : null,
      )
      .catch(() => null);
    if (!ev) continue;
    stop(id);
    await published(deps, ev, true);
    back++;
  }
  if (back) deps.log.warn("runs handed back at shutdown, queued for another instance", { count: back });
}
