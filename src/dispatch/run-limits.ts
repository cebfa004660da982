import type { Caller } from "../auth/roles.ts";
import {
  failing,
  type AppliedLimits,
  type FlowControl,
  type FullCap,
  type Refusal,
  type Taken,
} from "../limits/flow-control.ts";
import type { Slot } from "../limits/limit-backend.ts";
import { noLimits } from "../limits/limits.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { SurfaceSnapshot } from "../registry/surface-snapshot.ts";
import type { RetryLoopOptions } from "./retry-loop.ts";

/**
 * The limits a run of `entry` is under (docs/flow-control.md §2): the declaration of each name along its chain (a
 * preset's own, then its ancestors' down to the tool), so a preset cannot escape its tool's limits; a branch's chain
 * is its own name only, and inherits nothing.
 */
export function appliedLimits(snapshot: Pick<SurfaceSnapshot, "base">, entry: SurfaceEntry): AppliedLimits {
  const applied: { name: string; limits: NonNullable<SurfaceEntry["limits"]> }[] = [];
  for (const name of entry.policyChain) {
    const limits = name === entry.name ? entry.limits : snapshot.base(name)?.limits;
    if (limits && !noLimits(limits)) applied.push({ name, limits });
  }
  return applied;
}

/** What a run admitted under limits holds to its outcome: its slots, and the half-open trials it is. */
export interface LimitTicket {
  flow: FlowControl;
  applied: AppliedLimits;
  /** Its rate tokens and its half-open trials (`failing` marks too). */
  taken: Taken;
  slots: Slot[];
  /** A queued run's: its slots are taken as it executes, waiting as long as it takes (`takeSlots`). */
  pending?: boolean;
  /**
   * A synchronous dispatch's whose slots were not free at once: the cap it waits for, its run stored QUEUED while it
   * waits (`run-waiting.ts`).
   */
  waitingFor?: FullCap;
}

/** A refused dispatch's details: the time to retry and the limit that refused it. */
export const refusalDetails = (r: Refusal) => ({
  retryAfterSeconds: r.retryAfterSeconds,
  limit: { reason: r.reason, declaredOn: r.declaredOn },
});

/**
 * Admits a dispatch under its limits: breakers, then rates, then (unless `background`: its slots are taken when it is
 * executed) the concurrency slots if they are free now. A cap full now is waited for by the stored run (the ticket's
 * `waitingFor`), unless it gives no time to wait (`waitSeconds` 0: refused at once). Null when nothing applies; a
 * {@link Refusal} when a limit refused it; else the ticket.
 */
export async function admitLimits(
  flow: FlowControl | undefined,
  applied: AppliedLimits,
  req: { caller: Caller; input: unknown; background?: boolean; signal?: AbortSignal },
): Promise<LimitTicket | Refusal | null> {
  if (!flow || (applied.length === 0 && !req.caller.rate)) return null;
  const taken: Taken = { trials: new Set(), tokens: [] };
  const refused = await flow.check(applied, req.caller, taken);
  if (refused) return refused;
  // A background run is not a half-open trial: its attempt may come much later.
  if (req.background) await flow.giveBack({ trials: taken.trials, tokens: [] });
  if (req.background) return { flow, applied, taken, slots: [] };
  const now = await flow.tryAcquire(applied, req.caller, req.input);
  if (Array.isArray(now)) return { flow, applied, taken, slots: now };
  if (now.waitSeconds > 0) return { flow, applied, taken, slots: [], waitingFor: now };
  const slots = await flow.acquire(applied, req.caller, req.input, { signal: req.signal });
  if (Array.isArray(slots)) return { flow, applied, taken, slots };
  await flow.giveBack(taken);
  return slots;
}

/** A run executing with no admission of its own (a queued or resumed run): it may have failures to forget. */
function executing(applied: AppliedLimits): Taken {
  return { trials: new Set(applied.filter((a) => a.limits.breaker).map((a) => failing(a.name))), tokens: [] };
}

/** The ticket of a queued run as it executes: its caps' slots are still to take (breakers and rates were checked). */
export function queuedTicket(
  deps: { flow?: FlowControl; surface: { snapshot(): Pick<SurfaceSnapshot, "base"> } },
  entry: SurfaceEntry,
): LimitTicket | undefined {
  const applied = deps.flow ? appliedLimits(deps.surface.snapshot(), entry) : [];
  if (!deps.flow || !applied.length) return undefined;
  return {
    flow: deps.flow,
    applied,
    taken: executing(applied),
    slots: [],
    pending: !!applied.some((a) => a.limits.concurrency),
  };
}

/**
 * Takes a pending ticket's slots (a queued run's, as it executes), waiting until they free or `signal` aborts (a
 * cancel, the shutdown: the run then ends as an aborted one does).
 */
export async function takeSlots(ticket: LimitTicket, caller: Caller, input: unknown, signal: AbortSignal) {
  if (!ticket.pending) return;
  ticket.pending = false;
  const slots = await ticket.flow.acquire(ticket.applied, caller, input, { background: true, signal });
  if (Array.isArray(slots)) ticket.slots.push(...slots);
}

/**
 * Releases what a ticket holds: its slots, and a half-open trial its run never attempted. `unadmitted`: the dispatch
 * was not run after all (its start failed, or an idempotent follow took its place): its tokens are given back too.
 * Returns undefined, so it chains as `releaseTicket(t) ?? next`.
 */
export function releaseTicket(ticket: LimitTicket | null | undefined, unadmitted = false): void {
  if (!ticket) return;
  for (const s of ticket.slots.splice(0)) void s.release().catch(() => {});
  const { trials, tokens } = ticket.taken;
  void ticket.flow.giveBack({ trials, tokens: unadmitted ? tokens : [] });
}

/** The retry loop's hooks of a run under limits: breakers told every attempt's outcome, retries wait for them. */
export function breakerHooks(
  ticket: LimitTicket | undefined,
): Pick<RetryLoopOptions<unknown>, "beforeRetry" | "attempted"> {
  if (!ticket || !ticket.applied.some((a) => a.limits.breaker)) return {};
  return {
    beforeRetry: (waitMs, signal) => ticket.flow.breakerWait(ticket.applied, waitMs + 60_000, signal),
    attempted: (kind, retryAfterSeconds) =>
      ticket.flow.attempted(ticket.applied, ticket.taken.trials, kind, retryAfterSeconds).catch(() => {}),
  };
}

/** How often a queued run waiting for its slots checks whether this instance began to stop. */
const CLOSING_POLL_MS = 250;

/**
 * The slots a QUEUED run of `entry` needs before it is claimed (docs/flow-control.md §3), waited for as long as it
 * takes: null when no cap applies, false when `closing()` turned true first (the run stays QUEUED for another
 * instance).
 */
export async function queuedSlots(
  flow: FlowControl | undefined,
  applied: AppliedLimits,
  caller: Caller,
  input: unknown,
  closing: () => boolean,
): Promise<LimitTicket | null | false> {
  if (!flow || !applied.some((a) => a.limits.concurrency)) return null;
  const stop = new AbortController();
  const poll = setInterval(() => closing() && stop.abort(), CLOSING_POLL_MS);
  try {
    const slots = await flow.acquire(applied, caller, input, { background: true, signal: stop.signal });
    if (!Array.isArray(slots)) return false;
    if (closing()) return releaseTicket({ flow, applied, taken: { trials: new Set(), tokens: [] }, slots }) ?? false;
    return { flow, applied, taken: executing(applied), slots };
  } finally {
    clearInterval(poll);
  }
}
