import type { AgentRunFilter, AgentRunRecord } from "../agent/agent-runs.ts";
import { isOwnerOrAdmin } from "../auth/ownership.ts";
import { agentRunScope } from "../auth/visibility.ts";
import { StreamEventRef } from "./agent-events.ts";
import { builder } from "./builder.ts";
import { connectionRef, readPage } from "./connection.ts";
import { requireCaller } from "./context.ts";
import { AgentRunStatusEnum, ErrorKindEnum } from "./enums.ts";

export const AgentRunRef = builder.objectRef<AgentRunRecord>("AgentRun").implement({
  description: "One agent run. Its events stream through agentStream(runId, afterSeq).",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The run's id; agentStream(runId:) joins it." }),
    agent: t.exposeString("agent", { description: "The agent's tool name." }),
    threadId: t.string({ nullable: true, description: "The thread it ran on.", resolve: (r) => r.threadId }),
    forkOf: t.id({
      nullable: true,
      description:
        "The failed or cancelled run this run forks past (its resumeCheckpointId without resume); null for any other run.",
      resolve: (r) => forkOf(r),
    }),
    status: t.field({ type: AgentRunStatusEnum, description: "Where the run is.", resolve: (r) => r.status }),
    final: t.field({
      type: StreamEventRef,
      nullable: true,
      description: "The terminal event, once there is one.",
      resolve: (r) => (r.final && r.final.type !== "run_failed" ? r.final : null),
    }),
    errorKind: t.field({
      type: ErrorKindEnum,
      nullable: true,
      description: "Why it failed, when FAILED; CANCELLED when it was cancelled.",
      resolve: (r) => (r.final?.type === "run_failed" ? r.final.kind : null),
    }),
    errorMessage: t.string({
      nullable: true,
      description: "What went wrong, when FAILED or CANCELLED.",
      resolve: (r) => (r.final?.type === "run_failed" ? r.final.message : null),
    }),
    lastSeq: t.int({
      nullable: true,
      description: "The seq of its last event, once it ended.",
      resolve: (r) => r.final?.seq ?? null,
    }),
    startedAt: t.field({ type: "DateTime", description: "When it started.", resolve: (r) => r.startedAt }),
    finishedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it ended or paused; null while RUNNING.",
      resolve: (r) => r.finishedAt,
    }),
  }),
});

/**
 * The run a fork forks past: its stored resumeCheckpointId, when it was started without resume (docs/agent-stream.md
 * §6.1).
 */
function forkOf(run: AgentRunRecord): string | null {
  const { resume, resumeCheckpointId } = run.input;
  return resume === undefined && typeof resumeCheckpointId === "string" ? resumeCheckpointId : null;
}

const AgentRunConnectionRef = connectionRef("AgentRun", AgentRunRef, "agent runs");

builder.queryFields((t) => ({
  agentRun: t.field({
    type: AgentRunRef,
    nullable: true,
    description: "An agent run; null when there is none the caller may see (its own, or any for an ADMIN).",
    args: { id: t.arg.id({ required: true, description: "The run's id." }) },
    resolve: async (_r, { id }, ctx) => {
      const caller = requireCaller(ctx);
      const run = await ctx.runtime.agents.store.get(String(id));
      return run && isOwnerOrAdmin(caller, run) ? run : null;
    },
  }),
  agentRuns: t.field({
    type: AgentRunConnectionRef,
    description:
      "The agent runs the caller may see (its own, or all for an ADMIN), newest first (relay-style connection).",
    args: {
      status: t.arg({ type: AgentRunStatusEnum, description: "Only runs in this status." }),
      agent: t.arg.string({ description: "Only runs of this agent." }),
      first: t.arg.int({ description: "Page size, 1 to 200.", defaultValue: 20 }),
      after: t.arg.string({ description: "The endCursor of the previous page." }),
    },
    resolve: (_r, args, ctx) => {
      const scope = agentRunScope(requireCaller(ctx));
      const filter: AgentRunFilter = { status: args.status ?? undefined, agent: args.agent ?? undefined };
      const store = ctx.runtime.agents.store;
      return readPage(
        args,
        (take, after) => store.list(filter, take, after, scope),
        () => store.count(filter, scope),
      );
    },
  }),
}));

builder.mutationFields((t) => ({
  cancelAgentRun: t.field({
    type: AgentRunRef,
    description:
      "Cancels a RUNNING agent run on whichever instance runs it: its tool calls in flight and its sub-agents are aborted, its tool runs end CANCELLED, and the run ends CANCELLED (its stream with AGENT_RUN_FAILED, kind CANCELLED). Returns the run once it has ended; a run that is not RUNNING is returned unchanged. Only a run the caller may see (its own, or any for an ADMIN).",
    args: { id: t.arg.id({ required: true, description: "The agent run's id." }) },
    resolve: (_r, { id }, ctx) => ctx.runtime.agents.cancelFor(String(id), requireCaller(ctx)),
  }),
}));
