import { maySeeRun, runScope } from "../auth/visibility.ts";
import { ApiError } from "../errors.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { RunEventRef, ToolRunRef } from "./run.ts";

/**
 * A run's stored events and its place in the run tree. Every read is under the
 * visibility rule (docs/security-model.md §2): a hidden run reads as absent.
 */
builder.objectFields(ToolRunRef, (t) => ({
  events: t.field({
    type: [RunEventRef],
    description:
      "The run's stored events, in seq order (what runEvents(runId, afterSeq) replays), at most `first` of them after `afterSeq`.",
    args: {
      afterSeq: t.arg.int({
        description: "Only events after this seq (page on with the last seq read).",
        defaultValue: 0,
      }),
      first: t.arg.int({ description: "At most this many, 1 to 1000.", defaultValue: 100 }),
    },
    resolve: async (r, { afterSeq, first }, ctx) => {
      const caller = requireCaller(ctx);
      const take = first ?? 100;
      if (take < 1 || take > 1000)
        throw ApiError.badInput(`"first" must be from 1 to 1000 (got ${take})`, [
          { path: "/first", message: "must be from 1 to 1000" },
        ]);
      if (!maySeeRun(caller, r)) return [];
      return ctx.runtime.runs.events({ runId: r.id }, afterSeq ?? 0, take, runScope(caller));
    },
  }),
  parent: t.field({
    type: ToolRunRef,
    nullable: true,
    description:
      "The run that started this one; null for a run a caller dispatched, or a parent the caller may not see.",
    resolve: async (r, _a, ctx) => {
      const caller = requireCaller(ctx);
      if (!r.parentRunId) return null;
      const parent = await ctx.runtime.runs.get(r.parentRunId);
      return parent && maySeeRun(caller, parent) ? parent : null;
    },
  }),
  children: t.field({
    type: [ToolRunRef],
    description:
      "The runs this run started (ctx.runTool, an agent's tool calls), oldest first, those the caller may see. For more than 500, page runs(parentRunId:).",
    args: { first: t.arg.int({ description: "At most this many, 1 to 500.", defaultValue: 100 }) },
    resolve: async (r, { first }, ctx) => {
      const caller = requireCaller(ctx);
      const take = first ?? 100;
      if (take < 1 || take > 500)
        throw ApiError.badInput(`"first" must be from 1 to 500 (got ${take})`, [
          { path: "/first", message: "must be from 1 to 500" },
        ]);
      return ctx.runtime.runs.children(r.id, take, runScope(caller));
    },
  }),
}));
