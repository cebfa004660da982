import type { Issue } from "../../errors.ts";
import type { Checkpoint } from "../tools-agent/checkpoint.ts";
import { actionsOf, awaitedIdsOf, pendingActionsOf } from "./pause.ts";
import type { ResumedBatch, ToolSpec } from "../tools-agent/loop-types.ts";

type Shared = Extract<Checkpoint, { kind: "subagents" }>;

/** Plans one checkpoint with the resume meant for it (resume.ts's planner). */
export type PlanOne = (
  cp: Checkpoint,
  resume: unknown,
  tools: ToolSpec[],
  issues: Issue[],
) => Promise<ResumedBatch | null>;

/** Gives answers to interactions at once, checking them first (resume.ts). */
export type AnswerAll = (ids: string[], answers: Record<string, unknown>, issues: Issue[]) => Promise<void>;

/**
 * Plans the resume of sibling sub-agents that share one terminal (docs/agent-stream.md
 * §9.2). Approvals: the decisions, one per action of the shared InterruptFinal in order,
 * are split among the sub-agents by their actions. Interactions and asks: every answer is
 * checked and given at once, then each sub-agent settles what it waits on. Each paused
 * sub-agent is continued by the resumed batch, each under its parent's call.
 */
export async function planShared(
  cp: Shared,
  resume: unknown,
  specs: Map<string, ToolSpec>,
  plan: PlanOne,
  answerAll: AnswerAll,
  issues: Issue[],
): Promise<ResumedBatch | null> {
  const subs = cp.paused.map((p) => {
    const call = cp.calls.find((c) => c.callId === p.callId)!;
    const spec = specs.get(call.tool);
    if (spec?.kind !== "subagent")
      issues.push({
        path: "/subagents",
        message: `the paused sub-agent "${call.tool}" is not a sub-agent of the resumed run`,
      });
    return { call, state: p.state, tools: spec?.kind === "subagent" ? spec.tools : [] };
  });
  if (issues.length) return null;
  let parts: unknown[];
  if (cp.pause === "interrupt_final") {
    const decisions = (resume as { decisions?: unknown } | null)?.decisions;
    const total = pendingActionsOf(cp);
    if (!Array.isArray(decisions) || decisions.length !== total) {
      issues.push({
        path: "/resume/decisions",
        message: `must be a list of ${total} decisions, one per action of the InterruptFinal, in order${Array.isArray(decisions) ? `, got ${decisions.length}` : ""}`,
      });
      // Each missing one by its action, as a single agent's resume names them.
      if (Array.isArray(decisions))
        actionsOf(cp)
          .slice(decisions.length)
          .forEach((a, k) =>
            issues.push({
              path: `/resume/decisions/${decisions.length + k}`,
              message: `is missing: a decision for ${a.tool} (call ${a.callId})`,
            }),
          );
      return null;
    }
    let at = 0;
    parts = subs.map((s) => {
      const n = pendingActionsOf(s.state.checkpoint);
      const part = { decisions: decisions.slice(at, at + n), offset: at };
      at += n;
      return part;
    });
  } else {
    const answers = readAnswers(resume, issues);
    if (!answers) return null;
    const ids = awaitedIdsOf(cp);
    await answerAll(ids, answers, issues);
    if (issues.length) return null;
    parts = subs.map(() => ({}));
  }
  const now: ResumedBatch["now"] = [];
  for (const [i, s] of subs.entries()) {
    const part = parts[i] as { decisions?: unknown[]; offset?: number };
    const found: Issue[] = [];
    const batch = await plan(s.state.checkpoint, part.decisions ? { decisions: part.decisions } : {}, s.tools, found);
    // A sub-agent's decisions are numbered within its slice: put them back in the shared list.
    issues.push(
      ...found.map((f) => ({
        ...f,
        path: f.path.replace(
          /^\/resume\/decisions\/(\d+)/,
          (_m, n: string) => `/resume/decisions/${Number(n) + (part.offset ?? 0)}`,
        ),
      })),
    );
    if (batch)
      now.push({
        call: s.call,
        resume: { state: s.state, batch: cp.interruptId ? retag(batch, cp.interruptId) : batch },
      });
  }
  if (issues.length) return null;
  return { calls: cp.calls, now, known: cp.done };
}

/** The calls decided under the shared InterruptFinal echo its interruptId, at any depth. */
function retag(batch: ResumedBatch, interruptId: string): ResumedBatch {
  return {
    ...batch,
    ...(batch.interruptId ? { interruptId } : {}),
    now: batch.now.map((n) =>
      n.resume ? { ...n, resume: { ...n.resume, batch: retag(n.resume.batch, interruptId) } } : n,
    ),
  };
}

function readAnswers(resume: unknown, issues: Issue[]): Record<string, unknown> | null {
  if (resume === null || resume === undefined || resume === true) return {};
  const answers = (resume as { answers?: unknown }).answers;
  if (
    typeof resume !== "object" ||
    Array.isArray(resume) ||
    (answers !== undefined && (!answers || typeof answers !== "object" || Array.isArray(answers)))
  ) {
    issues.push({ path: "/resume", message: "must be { answers: { <interaction or ask id>: <answer> } }" });
    return null;
  }
  return (answers ?? {}) as Record<string, unknown>;
}
