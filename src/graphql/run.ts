import { RunProgressRef } from "./run-progress.ts";
import type { AttemptRecord, RunEventRecord, RunRecord } from "../dispatch/run-record.ts";
import type { ContentBlock } from "../tools/result.ts";
import { builder } from "./builder.ts";
import { requireCaller, type GraphQLContext } from "./context.ts";
import type { Role } from "../auth/roles.ts";
import { DoorEnum, ErrorKindEnum, RoleEnum, RunEventTypeEnum, RunStatusEnum } from "./enums.ts";
import { resumableStream } from "./resumable-stream.ts";
import { closeWith } from "./stream.ts";
import { RetryPolicyRef } from "./tool.ts";
import { callerAnswer } from "../dispatch/caller-answer.ts";
import { replayThenLive } from "../dispatch/run-events.ts";
import { checkDispatchBounds } from "../auth/dispatch-bounds.ts";
import { maySeeRun, requireVisibleRun } from "../auth/visibility.ts";

const AttemptRef = builder.objectRef<AttemptRecord>("Attempt").implement({
  description: "One attempt of a run's retry loop.",
  fields: (t) => ({
    number: t.exposeInt("number", { description: "1 for the first attempt, then +1 for each retry." }),
    startedAt: t.field({ type: "DateTime", description: "When the attempt began.", resolve: (a) => a.startedAt }),
    finishedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it ended; null while it runs.",
      resolve: (a) => a.finishedAt,
    }),
    errorKind: t.field({
      type: ErrorKindEnum,
      nullable: true,
      description: "Why it failed; null when it did not.",
      resolve: (a) => a.errorKind,
    }),
    errorMessage: t.string({
      nullable: true,
      description: "What went wrong, when it failed.",
      resolve: (a) => a.errorMessage,
    }),
    waitSeconds: t.float({
      nullable: true,
      description: "Seconds waited after this attempt before the next.",
      resolve: (a) => a.waitSeconds,
    }),
  }),
});

const ContentBlockRef = builder.objectRef<ContentBlock>("ContentBlock").implement({
  description: "One block of a tool result, as a model reads it.",
  fields: (t) => ({
    type: t.exposeString("type", { description: 'The block kind, e.g. "text" or "image".' }),
    text: t.string({ nullable: true, description: "The text of a text block.", resolve: (b) => b.text ?? null }),
    data: t.field({
      type: "JSON",
      nullable: true,
      description: "The payload of a non-text block.",
      resolve: (b) => b.data ?? null,
    }),
    mimeType: t.string({
      nullable: true,
      description: "The media type of a non-text block.",
      resolve: (b) => b.mimeType ?? null,
    }),
  }),
});

export const ToolRunRef = builder.objectRef<RunRecord>("ToolRun").implement({
  description: "One dispatch. Failures are data: status, errorKind and errorMessage.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The run's id." }),
    tool: t.exposeString("tool", { description: "The name it was dispatched to." }),
    status: t.field({
      type: RunStatusEnum,
      description: "Where the run is in its lifecycle.",
      resolve: (r) => r.status,
    }),
    input: t.field({
      type: "JSON",
      nullable: true,
      description: '"[redacted]" for SECRET tools.',
      resolve: (r) => r.input,
    }),
    content: t.field({
      type: [ContentBlockRef],
      description: "The result's blocks for a model.",
      resolve: (r) => r.content,
    }),
    data: t.field({ type: "JSON", nullable: true, description: "The structured result.", resolve: (r) => r.data }),
    details: t.field({
      type: "JSON",
      nullable: true,
      description: "Facts not shown to a model (e.g. validation issues).",
      resolve: (r) => r.details,
    }),
    isError: t.exposeBoolean("isError", { description: "True when the result reports an error." }),
    errorKind: t.field({
      type: ErrorKindEnum,
      nullable: true,
      description: "Why the run failed; null unless FAILED or CANCELLED.",
      resolve: (r) => r.errorKind,
    }),
    errorMessage: t.string({ nullable: true, description: "What went wrong.", resolve: (r) => r.errorMessage }),
    terminate: t.exposeBoolean("terminate", { description: "The result asks an agent loop to stop after this batch." }),
    attempts: t.field({
      type: [AttemptRef],
      description: "Every attempt, the first one first.",
      resolve: (r) => r.attempts,
    }),
    retryPolicy: t.field({
      type: RetryPolicyRef,
      nullable: true,
      description: "The policy this run was executed with.",
      resolve: (r) => r.retryPolicy,
    }),
    parentRunId: t.id({
      nullable: true,
      description: "The run that started this one; null for a run a caller dispatched.",
      resolve: (r) => r.parentRunId,
    }),
    door: t.field({ type: DoorEnum, description: "The door the run came through.", resolve: (r) => r.door }),
    callerRole: t.field({
      type: RoleEnum,
      description: "The role of the caller that started the run (an anonymous caller's is TAI_ANONYMOUS_ROLE).",
      resolve: (r) => r.callerRole as Role,
    }),
    startedAt: t.field({ type: "DateTime", description: "When the run was admitted.", resolve: (r) => r.startedAt }),
    finishedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it ended; null while RUNNING or PARKED.",
      resolve: (r) => r.finishedAt,
    }),
  }),
});

export const RunEventRef = builder.objectRef<RunEventRecord>("RunEvent").implement({
  description: "One entry of the run event log.",
  fields: (t) => ({
    seq: t.exposeInt("seq", {
      description: "Its place in the log: global and strictly increasing; pass as afterSeq to resume after it.",
    }),
    type: t.field({ type: RunEventTypeEnum, description: "What happened.", resolve: (e) => e.type }),
    run: t.field({
      type: ToolRunRef,
      description: "The run as it was when the event happened.",
      resolve: (e) => e.run,
    }),
    at: t.field({ type: "DateTime", description: "When it happened.", resolve: (e) => e.at }),
    progress: t.field({
      type: RunProgressRef,
      nullable: true,
      description: "RUN_PROGRESS: the update the tool reported; null for every other type.",
      resolve: (e) => e.progress ?? null,
    }),
  }),
});

const DispatchInput = builder.inputType("DispatchInput", {
  description: "A tool call.",
  fields: (t) => ({
    tool: t.string({ required: true, description: "A name on the surface: a tool, preset, branch or agent." }),
    input: t.field({
      type: "JSONObject",
      required: true,
      description: "The arguments, validated against the tool's inputSchema.",
    }),
    idempotencyKey: t.string({
      description: "A re-issued dispatch with the same key, tool and caller returns the first run.",
    }),
    timeoutSeconds: t.float({ description: "Per-attempt timeout; can only shorten the tool's own." }),
    background: t.boolean({
      description:
        "Store the run QUEUED and answer at once; whichever instance has capacity executes it (follow it with run or runEvents). Its input must be storable as it is: a secret-tier tool, or an input holding a secret, is refused (BAD_USER_INPUT).",
    }),
  }),
});

builder.queryFields((t) => ({
  run: t.field({
    type: ToolRunRef,
    nullable: true,
    args: { id: t.arg.id({ required: true, description: "The run's id." }) },
    description: "A run; null when there is none the caller may see (docs/security-model.md §2).",
    resolve: async (_r, { id }, ctx) => {
      const caller = requireCaller(ctx);
      const run = await ctx.runtime.runs.get(String(id));
      return run && maySeeRun(caller, run) ? run : null;
    },
  }),
}));

builder.mutationFields((t) => ({
  dispatch: t.field({
    type: ToolRunRef,
    description:
      "Runs a tool through the chokepoint. A failed, forbidden or invalid run is returned as data (status FAILED).",
    args: { input: t.arg({ type: DispatchInput, required: true, description: "The tool and its arguments." }) },
    resolve: async (_r, { input }, ctx) => {
      const caller = requireCaller(ctx);
      // The chokepoint's own bounds, checked first so that the issues name this argument.
      checkDispatchBounds(input, "/input");
      // A secret-tier run's result reaches its caller here, once (`callerAnswer`).
      return callerAnswer(
        await ctx.runtime.dispatcher.runDetailed({
          tool: input.tool,
          input: input.input,
          caller,
          door: "graphql",
          connection: ctx.signal,
          idempotencyKey: input.idempotencyKey ?? undefined,
          timeoutSeconds: input.timeoutSeconds ?? undefined,
          background: input.background ?? undefined,
        }),
      );
    },
  }),
  cancelRun: t.field({
    type: ToolRunRef,
    description:
      "Aborts the attempt in flight; no retry follows. Only a run the caller may see (its own, or any for an ADMIN) can be cancelled.",
    args: { id: t.arg.id({ required: true, description: "The run's id." }) },
    resolve: async (_r, { id }, ctx) => {
      return ctx.runtime.dispatcher.cancelFor(requireCaller(ctx), String(id));
    },
  }),
}));

builder.subscriptionFields((t) => ({
  runEvents: t.field({
    type: RunEventRef,
    description:
      "Run events, optionally for one run or tool. With afterSeq, persisted events after it are replayed first, then live ones follow.",
    args: {
      runId: t.arg.id({ description: "Only this run's events; NOT_FOUND when the caller may not see it." }),
      tool: t.arg.string({ description: "Only the events of runs of this tool." }),
      afterSeq: t.arg.int({ description: "Replay the stored events after this seq first (0: all)." }),
    },
    subscribe: async (_r, args, ctx) => {
      const caller = requireCaller(ctx);
      const filter = { runId: args.runId ? String(args.runId) : undefined, tool: args.tool ?? undefined };
      if (filter.runId) requireVisibleRun(caller, await ctx.runtime.runs.get(filter.runId), filter.runId);
      return closeWith(ctx, (signal) =>
        resumableStream(replayThenLive(ctx.runtime, filter, args.afterSeq ?? null, signal, caller), {
          afterSeq: args.afterSeq ?? null,
          seq: (e) => e.seq,
          resumeWith: "afterSeq",
        }),
      );
    },
    resolve: (e: RunEventRecord) => e,
  }),
}));

export type { GraphQLContext };
