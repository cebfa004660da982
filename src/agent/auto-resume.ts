import { isOwnerOrAdmin } from "../auth/ownership.ts";
import type { InFlight } from "../runlog/in-flight.ts";
import { ApiError } from "../errors.ts";
import type { AgentRunOptions } from "./agent.ts";
import { launchRun } from "./agent-runner.ts";
import type { AgentRunRecord } from "./agent-runs.ts";
import type { AgentHost as AgentService, AgentServiceDeps, StartedRun, StartRequest } from "./agent-host.ts";
import { originalCaller } from "./run-owner.ts";
import type { AsksFinal, SuspendedFinal } from "./events.ts";
import type { Checkpoint } from "./tools-agent/checkpoint.ts";
import { markOf } from "./fork.ts";
import { failRelaunch } from "./relaunch-failure.ts";

type Agents = Pick<AgentService, "store" | "services" | "classes">;
type Deps = Pick<AgentServiceDeps, "db" | "dispatcher" | "bus" | "log" | "secrets" | "instanceId" | "observer">;

/** Option keys a continuation does not inherit from the run it continues. */
const NOT_INHERITED = ["resume", "userMessage", "resumeCheckpointId"];

/**
 * The interactions a paused run waits on out of band: a SUSPENDED run's parks, or an
 * ASKED run's asks (each an interaction, docs/agent-stream.md §8). Null when the run waits
 * on nothing an answer can continue (an interrupt, or asks stored before they were parks).
 */
function awaited(run: AgentRunRecord): string[] | null {
  const final = run.final as SuspendedFinal | AsksFinal | null;
  if (run.status === "SUSPENDED" && final?.type === "suspended_final") return final.interactionIds;
  const cp = run.checkpoint as Checkpoint | null;
  if (run.status === "ASKED" && final?.type === "asks_final" && cp && "kind" in cp) return askedIn(cp);
  return null;
}

/** The asks a checkpoint waits on, through the sub-agents that paused on them (docs/agent-stream.md §9.2). */
function askedIn(cp: Checkpoint): string[] | null {
  if (cp.kind === "subagent") return askedIn(cp.state.checkpoint);
  if (cp.kind === "subagents") {
    const each = cp.paused.map((p) => askedIn(p.state.checkpoint));
    return each.some((ids) => ids === null) ? null : (each.flat() as string[]);
  }
  return cp.kind === "asks" && "parked" in cp ? cp.parked.flatMap((p) => p.interactionIds) : null;
}

/**
 * Whether every interaction a SUSPENDED or ASKED run waits on was answered or expired and
 * its tool run has an outcome (docs/agent-stream.md §7.1).
 */
export async function readyToContinue(agents: Agents, run: AgentRunRecord): Promise<boolean> {
  const ids = awaited(run);
  const port = agents.services.interactions;
  if (!ids || !port) return false;
  const toolRuns = new Set<string>();
  for (const id of ids) {
    const interaction = await port.get(id);
    if (!interaction) continue;
    if (interaction.status === "PENDING") return false;
    toolRuns.add(interaction.runId);
  }
  for (const id of toolRuns) {
    const toolRun = await agents.services.runs.get(id);
    if (toolRun && (toolRun.status === "RUNNING" || toolRun.status === "PARKED")) return false;
  }
  return true;
}

/**
 * Continues a SUSPENDED (or ASKED) run out of band, once its answers (or expiries) are in
 * (docs/agent-stream.md §7.1): the run is claimed in the database (SUSPENDED → RUNNING,
 * compare-and-set on its suspension, so of every instance and explicit resume exactly one
 * wins), then runs on under the same runId, its events numbered on from the
 * SuspendedFinal. It runs as the caller who started it, never above the role recorded on
 * the run; a revoked key fails it. False when there was nothing to continue here.
 */
export async function continueSuspended(
  agents: Agents,
  deps: Deps,
  inflight: InFlight<void>,
  runId: string,
): Promise<boolean> {
  if (inflight.closing) return false;
  const run = await agents.store.get(runId);
  if (!run || !run.threadId || !(await readyToContinue(agents, run))) return false;
  // A thread that moved on (a later run abandoned the pause) is not continued.
  const latest = await agents.store.latestOnThread(run.threadId);
  if (latest?.id !== run.id) return false;
  if (!(await agents.store.claimSuspended(run, deps.instanceId))) return false;
  const seqBase = await agents.store.lastSeq(run.id);
  const rival = await agents.store.rivalOnThread(run.threadId, run.id, run);
  if (rival) {
    await agents.store.unclaimSuspended(run);
    return false;
  }
  deps.log.info(
    `a ${run.status === "ASKED" ? "asked" : "suspended"} agent run continues: its interactions were answered`,
    { agentRunId: run.id },
  );
  try {
    const cls = agents.classes().get(run.agent);
    if (!cls)
      throw new ApiError("NOT_FOUND", `the agent "${run.agent}" is no longer registered; the run cannot continue`);
    const caller = await originalCaller(deps.db, run);
    const inherited = Object.fromEntries(Object.entries(run.input).filter(([k]) => !NOT_INHERITED.includes(k)));
    const options: AgentRunOptions = { ...inherited, resume: {}, threadId: run.threadId };
    const agent = new cls();
    const prepared = await agent.prepare(options, {
      caller,
      threadId: run.threadId,
      services: agents.services,
      resuming: run,
    });
    launchRun(agents, deps, inflight, {
      runId: run.id,
      threadId: run.threadId,
      agent: run.agent,
      agentInstance: agent,
      options,
      caller,
      resuming: run,
      prepared,
      seqBase,
      mark: markOf(run.checkpoint) ?? undefined,
    });
  } catch (e) {
    await failRelaunch(agents, deps, { runId: run.id, seqBase, mark: markOf(run.checkpoint) ?? undefined }, e);
  }
  return true;
}

/**
 * An explicit resume of a thread whose suspended run already continued by itself joins
 * that continuation: the stream starts after its SuspendedFinal. Null when the thread's
 * last run did not continue out of band (the ordinary resume rules apply).
 */
export async function joinContinued(agents: Agents, req: StartRequest): Promise<StartedRun | null> {
  const { threadId, resume, resumeCheckpointId } = req.options;
  if (resume === undefined || typeof threadId !== "string") return null;
  const latest = await agents.store.latestOnThread(threadId);
  if (
    !latest ||
    latest.status === "SUSPENDED" ||
    latest.status === "RESUMED" ||
    latest.status === "INTERRUPTED" ||
    latest.status === "ASKED"
  )
    return null;
  const log = await agents.store.events(latest.id, 0);
  const suspension = log.findLast((e) => e.type === "suspended_final" || e.type === "asks_final");
  if (!suspension) return null;
  if (!isOwnerOrAdmin(req.caller, latest)) return null;
  if (resumeCheckpointId && resumeCheckpointId !== latest.id) return null;
  const answers = (resume as { answers?: unknown } | null)?.answers;
  if (answers && typeof answers === "object" && Object.keys(answers).length)
    throw new ApiError(
      "CONFLICT",
      `run ${latest.id} already continued once its interactions were answered; follow it with agentStream(runId: "${latest.id}", afterSeq: ${suspension.seq})`,
    );
  return { runId: latest.id, threadId, agent: latest.agent, afterSeq: suspension.seq };
}
