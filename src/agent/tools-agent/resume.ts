import type { Caller } from "../../auth/roles.ts";
import { isFinal } from "../../dispatch/run-record.ts";
import { ApiError, type Issue } from "../../errors.ts";
import { validate } from "../../tools/json-schema.ts";
import type { AgentRunDeps } from "../agent-run-deps.ts";
import type { AgentRunRecord } from "../agent-runs.ts";
import { errorOutcome, outcomeOfRun } from "./call-tool.ts";
import type { Checkpoint, DoneOutcome, PlannedCall } from "./checkpoint.ts";
import { parseDecisions } from "./interrupts.ts";
import { pendingInterruptOf } from "../subagents/pause.ts";
import { planShared, type AnswerAll, type PlanOne } from "../subagents/resume-shared.ts";
import type { ResumedBatch, ToolSpec } from "./loop-types.ts";
import { planProgress, progressOf } from "./continue-progress.ts";

/**
 * Turns a resume into the batch the new run settles first (docs/agent-stream.md §6–§8).
 * Every check happens before any side effect; only then are interaction answers given
 * (which resumes the parked tool runs). Problems are pushed to `issues`; a state that
 * forbids the resume (an interaction still pending) is CONFLICT.
 */
export async function planResume(
  paused: AgentRunRecord,
  resume: unknown,
  tools: ToolSpec[],
  caller: Caller,
  services: AgentRunDeps,
  issues: Issue[],
): Promise<ResumedBatch | null> {
  const cp = paused.checkpoint as Checkpoint | null;
  // A RUNNING run whose instance is gone continues from its stored progress (docs/agent-stream.md §4.3), even one
  // that was itself continuing a pause (its checkpoint still names that pause: the progress is newer).
  const progress = progressOf(cp);
  if (progress) return planProgress(progress, tools, services);
  if (!cp || !("kind" in cp)) throw new ApiError("CONFLICT", `run ${paused.id} stored no checkpoint to resume from`);
  const batch = await planCheckpoint(cp, resume, tools, caller, services, issues);
  return batch && { ...batch, turns: cp.turns };
}

/**
 * {@link planResume} for one checkpoint; a paused sub-agent's is planned with its own tools (docs/agent-stream.md
 * §9.2).
 */
async function planCheckpoint(
  cp: Checkpoint,
  resume: unknown,
  tools: ToolSpec[],
  caller: Caller,
  services: AgentRunDeps,
  issues: Issue[],
): Promise<ResumedBatch | null> {
  const specs = new Map(tools.map((t) => [t.name, t]));
  for (const c of cp.calls)
    if (!c.invalid && !specs.has(c.tool))
      issues.push({
        path: "/toolNames",
        message: `the paused turn calls "${c.tool}", which is not a tool of the resumed run`,
      });

  checkInterruptId(resume, cp);
  if (cp.kind === "interrupt") return planInterrupt(cp, resume, issues);
  if (cp.kind === "subagent") return planSubagent(cp, resume, specs, caller, services, issues);
  if (cp.kind === "subagents") return planSubagents(cp, resume, specs, caller, services, issues);
  const answers = readAnswers(resume, issues);
  if (cp.kind === "asks" && "asks" in cp) return planStoredAsks(cp, answers, issues);
  return planParked(cp, answers, specs, caller, services, issues);
}

type Specs = Map<string, ToolSpec>;
type KindOf<K extends Checkpoint["kind"]> = Extract<Checkpoint, { kind: K }>;

/** An interrupt's decisions: a rejected call settles with its rejection, an edited one runs with its new arguments. */
function planInterrupt(cp: KindOf<"interrupt">, resume: unknown, issues: Issue[]): ResumedBatch | null {
  const { decisions, issues: found } = parseDecisions(resume, cp.actions);
  issues.push(...found);
  if (found.length) return null;
  const byCall = new Map(cp.actions.map((a, i) => [a.callId, decisions[i]]));
  const calls: PlannedCall[] = [];
  const now: ResumedBatch["now"] = [];
  for (const c of cp.calls) {
    const d = byCall.get(c.callId);
    if (d?.type === "reject") {
      calls.push(c);
      now.push({
        call: c,
        outcome: {
          ...errorOutcome("REJECTED", `the reviewer rejected this call${d.message ? `: ${d.message}` : ""}`),
          result: { rejected: true, message: d.message ?? null },
        },
      });
    } else {
      const call = d?.type === "edit" ? { ...c, args: d.args } : c;
      calls.push(call);
      now.push({ call });
    }
  }
  return { calls, now, known: {}, interruptId: cp.interruptId };
}

/** A paused sub-agent continues where it stopped, its own checkpoint planned with its own tools. */
async function planSubagent(
  cp: KindOf<"subagent">,
  resume: unknown,
  specs: Specs,
  caller: Caller,
  services: AgentRunDeps,
  issues: Issue[],
): Promise<ResumedBatch | null> {
  const call = cp.calls.find((c) => c.callId === cp.callId)!;
  const spec = specs.get(call.tool);
  if (spec?.kind !== "subagent") {
    issues.push({
      path: "/subagents",
      message: `the paused sub-agent "${call.tool}" is not a sub-agent of the resumed run`,
    });
    return null;
  }
  const batch = await planCheckpoint(cp.state.checkpoint, resume, spec.tools, caller, services, issues);
  return (
    batch && {
      calls: cp.calls,
      now: [{ call, resume: { state: cp.state, batch: { ...batch, turns: cp.state.checkpoint.turns } } }],
      known: cp.done,
    }
  );
}

/** Sub-agents that paused the same way continue together (docs/agent-stream.md §9.2). */
function planSubagents(
  cp: KindOf<"subagents">,
  resume: unknown,
  specs: Specs,
  caller: Caller,
  services: AgentRunDeps,
  issues: Issue[],
): Promise<ResumedBatch | null> {
  const plan: PlanOne = (inner, r, innerTools, found) => planCheckpoint(inner, r, innerTools, caller, services, found);
  const answerAll: AnswerAll = async (ids, answers, found) => {
    const known = new Set(ids);
    for (const id of Object.keys(answers))
      if (!known.has(id))
        found.push({ path: `/resume/answers/${id}`, message: "is not an interaction this run waits on" });
    if (cp.pause === "asks_final") await checkAskAnswers(ids, answers, services, found);
    if (found.length || !Object.keys(answers).length) return;
    if (!services.interactions) throw new ApiError("CONFLICT", "interactions are not available on this server");
    await services.interactions.answerAll(answers, caller, "/resume/answers");
  };
  return planShared(cp, resume, specs, plan, answerAll, issues);
}

/** The answers of an ASKED run stored before asks were parks. */
function planStoredAsks(
  cp: Extract<Checkpoint, { asks: unknown }>,
  answers: Record<string, unknown>,
  issues: Issue[],
): ResumedBatch | null {
  // An ASKED run stored before asks were parks: its answers are checked here and become the results.
  const asks = new Map(cp.asks.map((a) => [a.id, a]));
  for (const id of Object.keys(answers))
    if (!asks.has(id)) issues.push({ path: `/resume/answers/${id}`, message: "is not a pending ask of this run" });
  for (const a of cp.asks) {
    if (!Object.hasOwn(answers, a.id))
      issues.push({ path: `/resume/answers/${a.id}`, message: `is missing: answer "${a.question}"` });
    else if (a.answerFormat)
      for (const i of validate(a.answerFormat, answers[a.id]))
        issues.push({ path: `/resume/answers/${a.id}${i.path}`, message: i.message });
  }
  if (issues.length) return null;
  const byCall = new Map(cp.asks.map((a) => [a.callId, a]));
  const now = cp.calls
    .filter((c) => byCall.has(c.callId))
    .map((call) => ({ call, outcome: answered(answers[byCall.get(call.callId)!.id]) }));
  return { calls: cp.calls, now, known: cp.done };
}

/** Parked calls: their interactions answered (all or none), each continues with its tool run's outcome. */
async function planParked(
  cp: Extract<Checkpoint, { parked: unknown }>,
  answers: Record<string, unknown>,
  specs: Specs,
  caller: Caller,
  services: AgentRunDeps,
  issues: Issue[],
): Promise<ResumedBatch | null> {
  if (cp.kind === "asks")
    await checkAskAnswers(
      cp.parked.flatMap((p) => p.interactionIds),
      answers,
      services,
      issues,
    );
  const parkedIds = new Set(cp.parked.flatMap((p) => p.interactionIds));
  for (const id of Object.keys(answers))
    if (!parkedIds.has(id))
      issues.push({ path: `/resume/answers/${id}`, message: "is not an interaction this run waits on" });
  if (issues.length) return null;
  if (Object.keys(answers).length && !services.interactions)
    throw new ApiError("CONFLICT", "interactions are not available on this server");
  // All or none: a refusal of any answer leaves every interaction pending and answerable.
  if (Object.keys(answers).length) await services.interactions!.answerAll(answers, caller, "/resume/answers");

  const now: ResumedBatch["now"] = [];
  const pending: string[] = [];
  for (const p of cp.parked) {
    const call = cp.calls.find((c) => c.callId === p.callId)!;
    let run = await services.runs.get(p.toolRunId);
    if (!run) throw new ApiError("CONFLICT", `the parked tool run ${p.toolRunId} is gone`);
    if (run.status === "PARKED") {
      pending.push(...p.interactionIds);
      continue;
    }
    if (!isFinal(run.status)) run = await services.toolRuns.awaitFinal(run.id);
    now.push({ call, outcome: outcomeOfRun(run, run, specs.get(call.tool)?.redacted ?? false) });
  }
  if (pending.length)
    throw new ApiError(
      "CONFLICT",
      `the run still waits on interaction${pending.length > 1 ? "s" : ""} ${pending.join(", ")}; answer ${pending.length > 1 ? "them" : "it"} first (answerInteraction, or resume.answers)`,
    );
  return { calls: cp.calls, now, known: cp.done };
}

/**
 * The batch as a new run settles it: a resume on the thread is a run of its own, whose
 * turns (and its paused sub-agents') are numbered from 1 (docs/agent-stream.md §2.2); only
 * a continuation of the same run (docs/agent-stream.md §7.1) numbers on.
 */
export function inNewRun(batch: ResumedBatch): ResumedBatch {
  return {
    ...batch,
    turns: undefined,
    now: batch.now.map((n) => (n.resume ? { ...n, resume: { ...n.resume, batch: inNewRun(n.resume.batch) } } : n)),
  };
}

/**
 * An explicit resume of an ASKED run answers every ask still pending, each matching its
 * answer format; checked before any answer is given, so a refused resume changes nothing.
 */
async function checkAskAnswers(
  ids: string[],
  answers: Record<string, unknown>,
  services: AgentRunDeps,
  issues: Issue[],
): Promise<void> {
  for (const id of ids) {
    const ask = await services.interactions?.get(id);
    if (!ask) continue;
    const at = `/resume/answers/${id}`;
    if (!Object.hasOwn(answers, id)) {
      if (ask.status === "PENDING") issues.push({ path: at, message: `is missing: answer "${ask.question}"` });
    } else if (ask.status !== "PENDING")
      issues.push({ path: at, message: `is ${ask.status.toLowerCase()}; it accepts no answer` });
    else if (ask.answerFormat)
      for (const i of validate(ask.answerFormat, answers[id])) issues.push({ path: at + i.path, message: i.message });
  }
}

/**
 * A resume may echo the InterruptFinal's `interruptId` (`resume.interruptId`); it must be
 * the thread's pending interrupt, else the client answers a pause it did not see.
 */
function checkInterruptId(resume: unknown, cp: Checkpoint): void {
  if (!resume || typeof resume !== "object" || !("interruptId" in resume)) return;
  const named = (resume as { interruptId: unknown }).interruptId;
  if (typeof named !== "string")
    throw ApiError.badInput("resume.interruptId must be a string: the interruptId of the InterruptFinal you answer", [
      { path: "/resume/interruptId", message: "must be a string" },
    ]);
  const pending = pendingInterruptOf(cp);
  if (named !== pending)
    throw new ApiError(
      "CONFLICT",
      pending
        ? `interrupt "${named}" is not the pending interrupt of this thread (${pending}); it was resumed already or never existed`
        : `interrupt "${named}" is not pending: the thread's paused run waits on ${cp.kind === "asks" ? "asks" : "interactions"}, not on an approval`,
      [{ path: "/resume/interruptId", message: "is stale" }],
    );
}

function readAnswers(resume: unknown, issues: Issue[]): Record<string, unknown> {
  if (resume === null || resume === undefined || resume === true) return {};
  const answers = (resume as { answers?: unknown })?.answers;
  if (typeof resume !== "object" || Array.isArray(resume)) {
    issues.push({ path: "/resume", message: "must be an object, e.g. { answers: { <id>: <answer> } }" });
    return {};
  }
  if (answers === undefined) return {};
  if (!answers || typeof answers !== "object" || Array.isArray(answers)) {
    issues.push({ path: "/resume/answers", message: "must be an object keyed by interaction or ask id" });
    return {};
  }
  return answers as Record<string, unknown>;
}

function answered(answer: unknown): DoneOutcome {
  return {
    status: "done",
    isError: false,
    result: answer,
    modelOutput:
      typeof answer === "string" ? { type: "text", value: answer } : { type: "json", value: (answer ?? null) as never },
    terminate: false,
    value: answer,
  };
}
