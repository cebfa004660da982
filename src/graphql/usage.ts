import { keyUsage, usageWhere, type UsageTotals } from "../agent/run-usage.ts";
import { AgentRunRef } from "./agent-run.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { ThreadRef } from "./thread.ts";

/** Token usage of agent runs (docs/agent-stream.md §2.5); also counted in `tai42_llm_tokens_total` on /metrics. */
export const TokenUsageRef = builder.objectRef<UsageTotals>("TokenUsage").implement({
  description:
    "Tokens agent runs' model calls used, sub-agents included, as the providers reported them (a count a provider did not report adds 0).",
  fields: (t) => ({
    inputTokens: t.exposeInt("inputTokens", { description: "Prompt tokens." }),
    outputTokens: t.exposeInt("outputTokens", { description: "Completion tokens." }),
    totalTokens: t.exposeInt("totalTokens", { description: "All tokens (the provider's total, else input + output)." }),
    runs: t.exposeInt("runs", { description: "How many agent runs the totals cover (1 for a run's own)." }),
  }),
});

builder.objectField(AgentRunRef, "usage", (t) =>
  t.field({
    type: TokenUsageRef,
    description: "The tokens the run used so far, sub-agents included (each RunUsage it emitted).",
    resolve: (r) => ({ ...r.usage, runs: 1 }),
  }),
);

builder.objectField(ThreadRef, "usage", (t) =>
  t.field({
    type: TokenUsageRef,
    description: "The tokens every agent run on the thread used (resumes and forks included).",
    resolve: (v, _a, ctx) => usageWhere(ctx.runtime.db, { threadId: v.id }),
  }),
);

builder.queryFields((t) => ({
  keyUsage: t.field({
    type: TokenUsageRef,
    description:
      "The tokens the agent runs started with an API key used, by the key's name: any key's for an ADMIN, else only the caller's own key's.",
    args: { keyName: t.arg.string({ required: true, description: "The key's name (Viewer.keyName for your own)." }) },
    resolve: (_r, { keyName }, ctx) => keyUsage(ctx.runtime.db, keyName, requireCaller(ctx)),
  }),
}));
