import type { InFlight } from "../runlog/in-flight.ts";
import { ApiError } from "../errors.ts";
import type { AgentRunOptions } from "./agent.ts";
import type { AgentHost, AgentServiceDeps } from "./agent-host.ts";
import { launchRun, stepKey } from "./agent-runner.ts";
import type { AgentRunRecord } from "./agent-runs.ts";
import { markOf } from "./fork.ts";
import { originalCaller } from "./run-owner.ts";
import { failRelaunch } from "./relaunch-failure.ts";
import { progressOf } from "./tools-agent/continue-progress.ts";

type Agents = Pick<AgentHost, "store" | "services" | "classes">;
type Deps = Pick<AgentServiceDeps, "db" | "dispatcher" | "bus" | "log" | "secrets" | "instanceId" | "observer">;

/** Option keys a continuation from stored progress does not take from the input: it goes on from the progress. */
const FROM_PROGRESS = ["resume", "userMessage", "resumeCheckpointId"];

/**
 * Whether a RUNNING run whose instance is gone can go on elsewhere (docs/agent-stream.md §4.3): its agent is
 * registered here, and it stored progress — or it stored neither progress nor any entry and is a plain start (no
 * resume, no fork), which is started again from its input (nothing of it was committed). A run that streamed without
 * storing progress (an agent that stores none) is failed instead: starting it again would repeat what it streamed.
 */
export async function continuable(agents: Agents, run: AgentRunRecord): Promise<boolean> {
  if (!run.threadId || !agents.classes().has(run.agent)) return false;
  if (progressOf(run.checkpoint)) return true;
  if (run.input.resume !== undefined || run.input.resumeCheckpointId !== undefined) return false;
  return (await agents.store.lastSeq(run.id)) === 0;
}

/**
 * Continues a run this instance claimed from a gone one (docs/agent-stream.md §4.3): rebuilt from its stored progress
 * (completed model turns and stored tool results are not done again; a call in flight follows its tool run), its
 * stream numbered on after its last stored entry, the tool steps already stored not stored again. Without progress it
 * starts its first turn again. It runs as the caller who started it; a failure to rebuild ends it FAILED.
 */
export async function continueOrphan(
  agents: Agents,
  deps: Deps,
  inflight: InFlight<void>,
  run: AgentRunRecord,
): Promise<void> {
  const seqBase = await agents.store.lastSeq(run.id);
  const storedSteps = new Set(
    (await agents.store.events(run.id, 0)).flatMap((e) => stepKey(e as Parameters<typeof stepKey>[0]) ?? []),
  );
  const progress = progressOf(run.checkpoint);
  const mark = markOf(run.checkpoint) ?? undefined;
  deps.log.warn(
    progress
      ? "an agent run whose instance is gone continues here from its last checkpoint"
      : "an agent run whose instance is gone stored no progress: it starts its first turn again here",
    { agentRunId: run.id, turns: progress?.turns ?? 0 },
  );
  try {
    const cls = agents.classes().get(run.agent);
    if (!cls) throw new ApiError("NOT_FOUND", `the agent "${run.agent}" is not registered; the run cannot continue`);
    const caller = await originalCaller(deps.db, run);
    const threadId = run.threadId!;
    const input = progress
      ? Object.fromEntries(Object.entries(run.input).filter(([k]) => !FROM_PROGRESS.includes(k)))
      : run.input;
    const options: AgentRunOptions = { ...input, ...(progress ? { resume: {} } : {}), threadId };
    const resuming = progress ? run : null;
    const agent = new cls();
    const prepared = await agent.prepare(options, { caller, threadId, services: agents.services, resuming });
    launchRun(agents, deps, inflight, {
      runId: run.id,
      threadId,
      agent: run.agent,
      agentInstance: agent,
      options,
      caller,
      resuming,
      prepared,
      seqBase,
      storedSteps,
      mark,
    });
  } catch (e) {
    await failRelaunch(agents, deps, { runId: run.id, seqBase, mark, owner: deps.instanceId }, e);
  }
}
