import { isToolError, ToolError } from "../errors.ts";
import type { FullCap, Refusal } from "../limits/flow-control.ts";
import type { RunReplay } from "../runlog/jobs.ts";
import type { RunOutcome, RunRequest } from "./request.ts";
import type { RunEventRecord, RunRecord } from "./run-record.ts";
import { untilStored } from "./run-follow.ts";
import { refusalDetails, releaseTicket, type LimitTicket } from "./run-limits.ts";
import { endedQueued, type QueuedEnd } from "./run-redrive.ts";
import { keepUnsureStart } from "./run-salvage.ts";
import { both } from "./run-settle.ts";
import type { RunSteps } from "./run-steps.ts";

/** An execution held in flight: its outcome, and what settles once it is no longer this instance's work. */
export interface Launched {
  done: Promise<RunOutcome>;
  held: Promise<unknown>;
}

/** A synchronous dispatch's run stored waiting (`markWaiting`), with what its wait needs. */
export interface Waiting {
  run: RunRecord;
  ticket: LimitTicket;
  /** Its entry is secret-tier: what it stores is redacted. */
  redact: boolean;
  req: Pick<RunRequest, "caller" | "input" | "signal">;
}

/**
 * A waiter's request as its run is launched: following its wait's signal as well as its caller's, so a cancel that
 * lands between its claim and its launch still stops it. Unchanged when it did not wait.
 */
export function followingWait<R extends Pick<RunRequest, "signal">>(req: R, waited: AbortSignal | undefined): R {
  if (!waited) return req;
  return { ...req, signal: req.signal ? AbortSignal.any([req.signal, waited]) : waited };
}

/**
 * Makes a synchronous dispatch's run, whose concurrency slots were not free at once, a waiting one
 * (docs/flow-control.md §3): stored QUEUED with `details.waitingFor` (`{ reason: "concurrency", declaredOn,
 * waitSeconds }`, the cap it waits for) and `syncWait`, which keeps the queue from taking it.
 */
export function markWaiting(run: RunRecord, replay: RunReplay, cap: FullCap): void {
  run.status = "QUEUED";
  run.details = { waitingFor: { reason: cap.reason, declaredOn: cap.declaredOn, waitSeconds: cap.waitSeconds } };
  replay.syncWait = true;
}

/**
 * Waits for the slots of the stored waiting run `run` (`markWaiting`), held in flight here meanwhile, so a re-issued
 * key follows it and a cancel reaches it. Once they are free it is claimed as a queued run is (QUEUED → RUNNING,
 * RUN_STARTED) and `launch`ed here, in this request. It ends without running, its slots and tokens given back: FAILED /
 * RATE_LIMITED with the refusal's details when the wait runs out or the caller's signal aborts; CANCELLED when it is
 * cancelled (here: its in-flight abort; elsewhere: the RUN_FINISHED the cancel publishes) or the instance stops.
 */
export function waitThenLaunch(
  steps: RunSteps,
  w: Waiting,
  launch: (run: RunRecord, waited: AbortSignal) => Launched,
): Launched {
  const { run, ticket } = w;
  const controller = new AbortController();
  const done = waitSlots(steps, w, controller).then(async (refused) => {
    const running: RunRecord = { ...run, status: "RUNNING", details: null };
    if (!refused && (await claimWaiting(steps, w, running))) return launch(running, controller.signal).done;
    releaseTicket(ticket, true);
    steps.settle.forget(run.id);
    return both(await endWaiting(steps, run.id, endOf(refused, controller.signal)));
  });
  // Before `add`: a wait whose write threw is held until its kept outcome is stored.
  done.catch((e: unknown) => keepUnsureStart(steps, run, w.redact, e));
  const held = steps.inflight.add(run.id, controller, done, untilStored(steps.settle, run.id));
  return { done, held };
}

/**
 * The slots of every cap along the ticket, waited for in line (up to each cap's `waitSeconds`): null once they are
 * the ticket's, else the refusal (the wait ran out, or `controller` or the caller's signal aborted).
 */
async function waitSlots(
  { deps }: RunSteps,
  { run, ticket, req }: Waiting,
  controller: AbortController,
): Promise<Refusal | null> {
  // A cancel made on another instance ends the stored run: its RUN_FINISHED stops the wait here.
  const unlisten = deps.bus.listen("runEvent", (e) => {
    if (e.runId === run.id && e.type === "RUN_FINISHED") controller.abort(cancelled());
  });
  try {
    const signal = req.signal ? AbortSignal.any([controller.signal, req.signal]) : controller.signal;
    const slots = await ticket.flow.acquire(ticket.applied, req.caller, req.input, { signal });
    if (!Array.isArray(slots)) return slots;
    ticket.slots.push(...slots);
    return null;
  } finally {
    unlisten();
  }
}

/**
 * The waiting run claimed with its slots as `running` (QUEUED → RUNNING, RUN_STARTED: the claim of a queued run, which
 * clears its `syncWait` and `waitingFor`); null when it was ended meanwhile. A claim that throws gives its slots back
 * (and its run is ended as an unsure start is: `keepUnsureStart`).
 */
async function claimWaiting(
  { deps, settle }: RunSteps,
  { ticket, redact }: Waiting,
  running: RunRecord,
): Promise<RunEventRecord | null> {
  const started = await deps.runs.claim(settle.snapshot(running, redact), deps.instanceId).catch((e: unknown) => {
    releaseTicket(ticket, true);
    throw e;
  });
  if (started) settle.publish(started);
  return started;
}

const cancelled = () => new ToolError("the run was cancelled", { kind: "CANCELLED" });

/** How a wait that did not get its slots ends its run: cancelled when `signal` (a cancel, the shutdown) aborted. */
function endOf(refused: Refusal | null, signal: AbortSignal): QueuedEnd {
  if (signal.aborted) {
    const reason = isToolError(signal.reason) ? signal.reason : cancelled();
    return { status: "CANCELLED", kind: reason.kind, message: reason.message };
  }
  if (refused)
    return { status: "FAILED", kind: refused.kind, message: refused.message, details: refusalDetails(refused) };
  return { status: "CANCELLED", kind: "CANCELLED", message: "the run was cancelled" };
}

/** Ends waiting run `runId` as `end` says, if it still waits here; resolves with the run as it now is. */
async function endWaiting({ deps, settle }: RunSteps, runId: string, end: QueuedEnd): Promise<RunRecord> {
  const from = { status: "QUEUED" as const, instanceId: deps.instanceId, syncWait: true };
  const ended = await deps.moves.move(runId, from, (run) => endedQueued(run, { ...end, freesKey: true }));
  if (ended) settle.publish(ended);
  return ended?.run ?? (await deps.runs.get(runId))!;
}
