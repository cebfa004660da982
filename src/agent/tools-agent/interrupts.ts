import type { Issue } from "../../errors.ts";
import type { Decision, DecisionType, InterruptAction, PlannedCall } from "./checkpoint.ts";

/** The approval gate of one tool. */
export interface GateConfig {
  allowedDecisions: DecisionType[];
  description: string | null;
}

const ALL: DecisionType[] = ["approve", "edit", "reject"];

/**
 * Reads `interruptOn` (tool → `true` | `{ allowedDecisions?, description? }`); every gated
 * name must be a tool of the run. `false` leaves a tool ungated.
 */
export function parseInterruptOn(
  interruptOn: Record<string, unknown> | undefined,
  toolNames: Set<string>,
): { gates: Map<string, GateConfig>; issues: Issue[] } {
  const gates = new Map<string, GateConfig>();
  const issues: Issue[] = [];
  for (const [tool, v] of Object.entries(interruptOn ?? {})) {
    const path = `/interruptOn/${tool}`;
    if (!toolNames.has(tool)) issues.push({ path, message: `"${tool}" is not a tool of this run` });
    else if (v === true) gates.set(tool, { allowedDecisions: ALL, description: null });
    else if (v && typeof v === "object") {
      const c = v as { allowedDecisions?: DecisionType[]; description?: string };
      gates.set(tool, {
        allowedDecisions: c.allowedDecisions?.length ? [...new Set(c.allowedDecisions)] : ALL,
        description: c.description ?? null,
      });
    }
  }
  return { gates, issues };
}

/** The actions an InterruptFinal lists: the gated calls of a turn, in the order asked. */
export function actionsFor(calls: PlannedCall[], gates: Map<string, GateConfig>): InterruptAction[] {
  return calls
    .filter((c) => !c.invalid && gates.has(c.tool))
    .map((c) => ({
      callId: c.callId,
      tool: c.tool,
      args: c.args,
      allowedDecisions: gates.get(c.tool)!.allowedDecisions,
      description: gates.get(c.tool)!.description,
    }));
}

/**
 * Reads a resume's decisions: `{ decisions: [...] }` with one per action in order, or a
 * single decision object when exactly one action is pending. Each must be allowed for
 * its action, and an edit must carry `args`. A decision may name its action's `callId`;
 * when it does, it must be the call at its position (a reordered list is refused, never
 * applied to the wrong call). A missing decision is named by its action.
 */
export function parseDecisions(
  resume: unknown,
  actions: InterruptAction[],
): { decisions: Decision[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const r = resume as { decisions?: unknown; type?: unknown } | null;
  let raw: unknown[];
  if (r && typeof r === "object" && Array.isArray(r.decisions)) raw = r.decisions;
  else if (r && typeof r === "object" && typeof r.type === "string") raw = [r];
  else
    return {
      decisions: [],
      issues: [
        {
          path: "/resume",
          message: 'must be { decisions: [{ type: "approve" | "edit" | "reject", … }] } (one per pending action)',
        },
      ],
    };
  if (raw.length !== actions.length)
    issues.push({
      path: "/resume/decisions",
      message: `must have ${actions.length} decision${actions.length === 1 ? "" : "s"} (one per pending action: ${actions.map((a) => a.tool).join(", ")}), got ${raw.length}`,
    });
  for (let i = raw.length; i < actions.length; i++)
    issues.push({
      path: `/resume/decisions/${i}`,
      message: `is missing: a decision for ${actions[i].tool} (call ${actions[i].callId})`,
    });
  const decisions: Decision[] = [];
  raw.forEach((d, i) => {
    const path = `/resume/decisions/${i}`;
    const action = actions[i];
    const dd = d as { type?: unknown; args?: unknown; message?: unknown; callId?: unknown };
    if (dd && typeof dd === "object" && dd.callId !== undefined && dd.callId !== action?.callId)
      issues.push({
        path: `${path}/callId`,
        message: action
          ? `is not the action at this position: expected "${action.callId}" (${action.tool})`
          : "names no pending action: there are fewer actions than decisions",
      });
    if (!dd || typeof dd !== "object" || !["approve", "edit", "reject"].includes(dd.type as string))
      return void issues.push({ path: `${path}/type`, message: 'must be "approve", "edit" or "reject"' });
    const type = dd.type as DecisionType;
    if (action && !action.allowedDecisions.includes(type))
      issues.push({
        path: `${path}/type`,
        message: `"${type}" is not allowed for ${action.tool} (allowed: ${action.allowedDecisions.join(", ")})`,
      });
    if (type === "edit") {
      if (!dd.args || typeof dd.args !== "object" || Array.isArray(dd.args))
        issues.push({ path: `${path}/args`, message: "an edit must carry the new args as an object" });
      else decisions.push({ type, args: dd.args as Record<string, unknown> });
    } else if (type === "reject") {
      if (dd.message !== undefined && typeof dd.message !== "string")
        issues.push({ path: `${path}/message`, message: "must be a string" });
      decisions.push({ type, message: typeof dd.message === "string" ? dd.message : undefined });
    } else decisions.push({ type });
  });
  return { decisions, issues };
}
