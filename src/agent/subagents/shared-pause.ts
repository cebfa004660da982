import { randomUUID } from "node:crypto";
import type { AsksFinal, InterruptFinal, StreamEvent, SuspendedFinal } from "../events.ts";
import type {
  Checkpoint,
  DoneOutcome,
  PlannedCall,
  SharedPauseType,
  SubagentPause,
} from "../tools-agent/checkpoint.ts";

/** A sub-agent call of a turn that paused. */
export interface PausedCall {
  callId: string;
  pause: SubagentPause;
}

/**
 * The paused sub-agent calls of a turn that share its one terminal (docs/agent-stream.md
 * §9.2): the first in the order asked, and every other that paused the same way (the
 * same terminal type). The rest cannot surface in this run.
 */
export function sharingPause<C extends PausedCall>(paused: C[]): C[] {
  const type = paused[0]?.pause.terminal.type;
  return paused.filter((p) => p.pause.terminal.type === type);
}

/**
 * The one terminal and checkpoint of a turn whose sub-agents paused the same way: one
 * sub-agent's pause is surfaced as it is; several are joined — an InterruptFinal lists
 * all their actions (a new interruptId), a SuspendedFinal all their interactions, an
 * AsksFinal all their asks — each action and ask carrying the label of its sub-agent.
 * `agent` is the label of the loop whose turn it was.
 */
export function joinPauses(
  paused: PausedCall[],
  calls: PlannedCall[],
  done: Record<string, DoneOutcome>,
  agent: string | null,
): { terminal: StreamEvent; checkpoint: Checkpoint } {
  if (paused.length === 1) {
    const [{ callId, pause }] = paused;
    return { terminal: pause.terminal, checkpoint: { kind: "subagent", calls, done, callId, state: pause.state } };
  }
  const terminals = paused.map((p) => p.pause.terminal);
  const type = terminals[0].type as SharedPauseType;
  const base = {
    kind: "subagents" as const,
    pause: type,
    calls,
    done,
    paused: paused.map((p) => ({ callId: p.callId, state: p.pause.state })),
  };
  const labelled = (items: unknown[], t: StreamEvent) =>
    items.map((x) => ({
      ...(x as Record<string, unknown>),
      agent: (x as { agent?: string | null }).agent ?? t.agent ?? null,
    }));
  if (type === "interrupt_final") {
    const all = terminals as InterruptFinal[];
    const interruptId = randomUUID();
    const actions = all.flatMap((t) => labelled((t.payload as { actions?: unknown[] } | null)?.actions ?? [], t));
    const tools = [...new Set(actions.map((a) => (a as { tool?: string }).tool))];
    return {
      terminal: {
        type,
        final: true,
        interruptId,
        payload: { actions },
        reason: `approval required: ${tools.join(", ")}`,
        agent,
      },
      checkpoint: { ...base, interruptId },
    };
  }
  if (type === "suspended_final") {
    const all = terminals as SuspendedFinal[];
    const expiries = all.flatMap((t) => (t.expiryAt ? [t.expiryAt] : [])).sort();
    return {
      terminal: {
        type,
        final: true,
        interactionIds: all.flatMap((t) => t.interactionIds),
        callerInteractionIds: all.flatMap((t) => t.callerInteractionIds),
        threadId: all[0].threadId,
        expiryAt: expiries[0] ?? null,
        agent,
      },
      checkpoint: base,
    };
  }
  const all = terminals as AsksFinal[];
  return {
    terminal: {
      type: "asks_final",
      final: true,
      asks: all.flatMap((t) => labelled(t.asks, t)) as Record<string, unknown>[],
      agent,
    },
    checkpoint: base,
  };
}
