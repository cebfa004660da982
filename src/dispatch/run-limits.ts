import type { Caller } from "../auth/roles.ts";
import type { AppliedLimits, FlowControl, Refusal } from "../limits/flow-control.ts";
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
  trials: Set<string>;
  slots: Slot[];
  /** A queued run's: its slots are taken as it executes, waiting as long as it takes (`takeSlots`). */
  pending?: boolean;
}

/** A refused dispatch's details: the time to retry and the limit that refused it. */
export const refusalDetails = (r: Refusal) => ({
  retryAfterSeconds: r.retryAfterSeconds,
  limit: { reason: r.reason, declaredOn: r.declaredOn },
});

/**
 * Admits a dispatch under its limits: breakers, then rates, then (unless `background`: its slots are taken when it is
 * executed) the concurrency slots, waiting in line. Null when nothing applies; a {@link Refusal} when a limit refused
 * it; else the ticket.
 */
export async function admitLimits(
  flow: FlowControl | undefined,
  applied: AppliedLimits,
  req: { caller: Caller; input: unknown; background?: boolean; signal?: AbortSignal },
): Promise<LimitTicket | Refusal | null> {
  if (!flow || (applied.length === 0 && !req.caller.rate)) return null;
  const trials = new Set<string>();
  const refused = (await flow.keyRate(req.caller)) ?? (await flow.check(applied, req.caller, trials));
  if (refused) return refused;
  if (req.background) return { flow, applied, trials, slots: [] };
  const slots = await flow.acquire(applied, req.caller, req.input, { signal: req.signal });
  return Array.isArray(slots) ? { flow, applied, trials, slots } : slots;
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
    trials: new Set(),
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

/** Releases what a ticket holds (its run has an outcome); undefined, so it chains as `releaseTicket(t) ?? next`. */
export function releaseTicket(ticket: LimitTicket | null | undefined): void {
  if (ticket) for (const s of ticket.slots.splice(0)) void s.release().catch(() => {});
}

/** The retry loop's hooks of a run under limits: breakers told every attempt's outcome, retries wait for them. */
export function breakerHooks(
  ticket: LimitTicket | undefined,
): Pick<RetryLoopOptions<unknown>, "beforeRetry" | "attempted"> {
  if (!ticket || !ticket.applied.some((a) => a.limits.breaker)) return {};
  return {
    beforeRetry: (waitMs, signal) => ticket.flow.breakerWait(ticket.applied, waitMs + 60_000, signal),
    attempted: (kind, retryAfterSeconds) =>
      ticket.flow.attempted(ticket.applied, ticket.trials, kind, retryAfterSeconds).catch(() => {}),
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
    if (closing()) return releaseTicket({ flow, applied, trials: new Set(), slots }) ?? false;
    return { flow, applied, trials: new Set(), slots };
  } finally {
    clearInterval(poll);
  }
}
