import { runScope } from "../auth/visibility.ts";
import type { RunFilter } from "../dispatch/run-store.ts";
import { ApiError } from "../errors.ts";
import { builder } from "./builder.ts";
import { connectionRef, readPage } from "./connection.ts";
import { requireCaller } from "./context.ts";
import { DoorEnum, RunStatusEnum } from "./enums.ts";
import { ToolRunRef } from "./run.ts";

const ToolRunConnectionRef = connectionRef("ToolRun", ToolRunRef, "tool runs");

builder.queryFields((t) => ({
  runs: t.field({
    type: ToolRunConnectionRef,
    description: "The runs the caller may see, newest first (relay-style connection). Every filter given must match.",
    args: {
      tool: t.arg.string({ description: "Only runs of this name." }),
      status: t.arg({ type: RunStatusEnum, description: "Only runs in this status." }),
      door: t.arg({ type: DoorEnum, description: "Only runs that came through this door." }),
      parentRunId: t.arg.id({ description: "Only the runs this run started (its children)." }),
      startedAfter: t.arg({ type: "DateTime", description: "Only runs started strictly after this instant." }),
      startedBefore: t.arg({ type: "DateTime", description: "Only runs started strictly before this instant." }),
      first: t.arg.int({ description: "Page size, 1 to 200.", defaultValue: 20 }),
      after: t.arg.string({ description: "The endCursor of the previous page." }),
    },
    resolve: async (_r, args, ctx) => {
      const scope = runScope(requireCaller(ctx));
      if (args.startedAfter && args.startedBefore && args.startedAfter >= args.startedBefore)
        throw ApiError.badInput(`"startedAfter" must be before "startedBefore"`, [
          { path: "/startedAfter", message: "must be before startedBefore" },
        ]);
      const filter: RunFilter = {
        tool: args.tool ?? undefined,
        status: args.status ?? undefined,
        door: args.door ?? undefined,
        parentRunId: args.parentRunId == null ? undefined : String(args.parentRunId),
        startedAfter: args.startedAfter ?? undefined,
        startedBefore: args.startedBefore ?? undefined,
      };
      return readPage(
        args,
        (take, after) => ctx.runtime.runs.list(filter, take, after, scope),
        () => ctx.runtime.runs.count(filter, scope),
      );
    },
  }),
}));
