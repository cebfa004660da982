import type { InterruptAction } from "./agents.ts";
import type { RunTranscript } from "./transcript.ts";

/** What was decided on one call an interrupt waited on, and the arguments it ran with (none when rejected). */
export interface DecidedAction {
  callId: string;
  tool: string;
  type: "approve" | "edit" | "reject";
  /** The arguments the call ran with: the edited ones after an edit; the ones asked for when rejected (not run). */
  args: Record<string, unknown>;
  /** The reason of a reject, when one was given. */
  message: string | null;
}

/** An interrupt's decisions, when they were made and by whom (a key name; null when not known). */
export interface Decided {
  actions: DecidedAction[];
  at: string | null;
  by: string | null;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What the run that resumed an interrupt carried out, read from its transcript (docs/agent-stream.md §6): each decided
 * call is a ToolCallStep naming the interrupt (`resumedInterruptId`) with the arguments it ran with; a rejected one
 * settles with `{ rejected: true, message }`. Null when `next` carries out no decision of this interrupt (yet).
 */
export function decidedFrom(
  interruptId: string,
  actions: readonly InterruptAction[],
  next: RunTranscript,
  at: string | null,
  by: string | null,
): Decided | null {
  const calls = new Map(
    next.items.flatMap((i) => (i.kind === "call" && i.resumedInterruptId === interruptId ? [[i.callId, i]] : [])),
  );
  if (!calls.size) return null;
  const decided = actions.map((a): DecidedAction => {
    const call = calls.get(a.callId);
    const outcome = call?.result?.value as { rejected?: unknown; message?: unknown } | null | undefined;
    if (call?.result?.isError && outcome?.rejected === true)
      return { ...base(a), type: "reject", message: typeof outcome.message === "string" ? outcome.message : null };
    // The arguments the call ran with, as the resumed run streamed them: an edit to `{}` ran with none.
    const args = call ? call.args : a.args;
    return { ...base(a), type: same(args, a.args) ? "approve" : "edit", args };
  });
  return { actions: decided, at, by };
}

const base = (a: InterruptAction) => ({ callId: a.callId, tool: a.tool, args: a.args, message: null });

/** The decisions a resume sends, as {@link Decided} says them (before the resumed run has streamed them back). */
export function decidedAsSent(
  actions: readonly InterruptAction[],
  decisions: readonly (
    { type: "approve" } | { type: "edit"; args: Record<string, unknown> } | { type: "reject"; message?: string }
  )[],
  at: string,
  by: string | null,
): Decided {
  return {
    actions: actions.map((a, i) => {
      const d = decisions[i];
      if (d.type === "edit") return { ...base(a), type: "edit", args: d.args };
      if (d.type === "reject") return { ...base(a), type: "reject", message: d.message ?? null };
      return { ...base(a), type: "approve" };
    }),
    at,
    by,
  };
}
