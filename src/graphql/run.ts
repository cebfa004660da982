import { GraphQLError } from "graphql";
import { ApiError } from "../errors.ts";
import type { AttemptRecord, RunEventRecord, RunRecord } from "../dispatch/run-record.ts";
import { ResumableStreamError } from "../events/bus.ts";
import type { ContentBlock } from "../tools/result.ts";
import { builder } from "./builder.ts";
import { requireCaller, type GraphQLContext } from "./context.ts";
import { ErrorKindEnum, RunEventTypeEnum, RunStatusEnum } from "./enums.ts";
import { closeWith } from "./stream.ts";
import { RetryPolicyRef } from "./tool.ts";
import { replayThenLive } from "../dispatch/run-events.ts";
import { maySeeRun, runScope } from "../auth/visibility.ts";

const AttemptRef = builder.objectRef<AttemptRecord>("Attempt").implement({
  fields: (t) => ({
    number: t.exposeInt("number"),
    startedAt: t.field({ type: "DateTime", resolve: (a) => a.startedAt }),
    finishedAt: t.field({ type: "DateTime", nullable: true, resolve: (a) => a.finishedAt }),
    errorKind: t.field({ type: ErrorKindEnum, nullable: true, resolve: (a) => a.errorKind }),
    errorMessage: t.string({ nullable: true, resolve: (a) => a.errorMessage }),
    waitSeconds: t.float({ nullable: true, description: "Seconds waited after this attempt before the next.", resolve: (a) => a.waitSeconds }),
  }),
});

const ContentBlockRef = builder.objectRef<ContentBlock>("ContentBlock").implement({
  fields: (t) => ({
    type: t.exposeString("type"),
    text: t.string({ nullable: true, resolve: (b) => b.text ?? null }),
    data: t.field({ type: "JSON", nullable: true, resolve: (b) => b.data ?? null }),
    mimeType: t.string({ nullable: true, resolve: (b) => b.mimeType ?? null }),
  }),
});

export const ToolRunRef = builder.objectRef<RunRecord>("ToolRun").implement({
  description: "One dispatch. Failures are data: status, errorKind and errorMessage.",
  fields: (t) => ({
    id: t.exposeID("id"),
    tool: t.exposeString("tool"),
    status: t.field({ type: RunStatusEnum, resolve: (r) => r.status }),
    input: t.field({ type: "JSON", nullable: true, description: '"[redacted]" for SECRET tools.', resolve: (r) => r.input }),
    content: t.field({ type: [ContentBlockRef], resolve: (r) => r.content }),
    data: t.field({ type: "JSON", nullable: true, resolve: (r) => r.data }),
    details: t.field({ type: "JSON", nullable: true, resolve: (r) => r.details }),
    isError: t.exposeBoolean("isError"),
    errorKind: t.field({ type: ErrorKindEnum, nullable: true, resolve: (r) => r.errorKind }),
    errorMessage: t.string({ nullable: true, resolve: (r) => r.errorMessage }),
    terminate: t.exposeBoolean("terminate"),
    attempts: t.field({ type: [AttemptRef], resolve: (r) => r.attempts }),
    retryPolicy: t.field({ type: RetryPolicyRef, nullable: true, description: "The policy this run was executed with.", resolve: (r) => r.policy }),
    parentRunId: t.id({ nullable: true, resolve: (r) => r.parentRunId }),
    door: t.exposeString("door", { description: "graphql | agent | extension | cli | mcp | runtime" }),
    callerRole: t.exposeString("callerRole"),
    startedAt: t.field({ type: "DateTime", resolve: (r) => r.startedAt }),
    finishedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.finishedAt }),
  }),
});

const RunEventRef = builder.objectRef<RunEventRecord>("RunEvent").implement({
  fields: (t) => ({
    seq: t.exposeInt("seq"),
    type: t.field({ type: RunEventTypeEnum, resolve: (e) => e.type }),
    run: t.field({ type: ToolRunRef, resolve: (e) => e.run }),
    at: t.field({ type: "DateTime", resolve: (e) => e.at }),
  }),
});

const PageInfoRef = builder.objectRef<{ hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }>("PageInfo").implement({
  fields: (t) => ({
    hasNextPage: t.exposeBoolean("hasNextPage"),
    hasPreviousPage: t.exposeBoolean("hasPreviousPage"),
    startCursor: t.string({ nullable: true, resolve: (p) => p.startCursor }),
    endCursor: t.string({ nullable: true, resolve: (p) => p.endCursor }),
  }),
});
const ToolRunEdgeRef = builder.objectRef<{ cursor: string; node: RunRecord }>("ToolRunEdge").implement({
  fields: (t) => ({ cursor: t.exposeString("cursor"), node: t.field({ type: ToolRunRef, resolve: (e) => e.node }) }),
});
const ToolRunConnectionRef = builder
  .objectRef<{ edges: { cursor: string; node: RunRecord }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null } }>("ToolRunConnection")
  .implement({
    fields: (t) => ({
      edges: t.field({ type: [ToolRunEdgeRef], resolve: (c) => c.edges }),
      pageInfo: t.field({ type: PageInfoRef, resolve: (c) => c.pageInfo }),
    }),
  });

const cursorOf = (r: RunRecord) => Buffer.from(`${r.startedAt}|${r.id}`).toString("base64url");
function parseCursor(cursor: string): { startedAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, "base64url").toString().split("|");
  const startedAt = new Date(at ?? "");
  if (!id || Number.isNaN(startedAt.getTime())) throw ApiError.badInput(`"after" is not a cursor this API issued`, [{ path: "/after", message: "is not a valid cursor" }]);
  return { startedAt, id };
}

const DispatchInput = builder.inputType("DispatchInput", {
  fields: (t) => ({
    tool: t.string({ required: true }),
    input: t.field({ type: "JSONObject", required: true }),
    idempotencyKey: t.string({ description: "A re-issued dispatch with the same key, tool and caller returns the first run." }),
    timeoutSeconds: t.float({ description: "Per-attempt timeout; can only shorten the tool's own." }),
  }),
});

builder.queryFields((t) => ({
  run: t.field({
    type: ToolRunRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    description: "A run; null when there is none the caller may see (docs/security-model.md §2).",
    resolve: async (_r, { id }, ctx) => {
      const caller = requireCaller(ctx);
      const run = await ctx.runtime.runs.get(String(id));
      return run && maySeeRun(caller, run) ? run : null;
    },
  }),
  runs: t.field({
    type: ToolRunConnectionRef,
    description: "The runs the caller may see, newest first (relay-style connection).",
    args: { tool: t.arg.string(), status: t.arg({ type: RunStatusEnum }), first: t.arg.int(), after: t.arg.string() },
    resolve: async (_r, args, ctx) => {
      const caller = requireCaller(ctx);
      const first = args.first ?? 20;
      if (first < 1 || first > 200) throw ApiError.badInput(`"first" must be from 1 to 200 (got ${first})`, [{ path: "/first", message: "must be from 1 to 200" }]);
      const after = args.after ? parseCursor(args.after) : undefined;
      const rows = await ctx.runtime.runs.list({ tool: args.tool ?? undefined, status: args.status ?? undefined }, first + 1, after, runScope(caller));
      const page = rows.slice(0, first);
      const edges = page.map((node) => ({ cursor: cursorOf(node), node }));
      return {
        edges,
        pageInfo: { hasNextPage: rows.length > first, hasPreviousPage: Boolean(after), startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
      };
    },
  }),
}));

builder.mutationFields((t) => ({
  dispatch: t.field({
    type: ToolRunRef,
    description: "Runs a tool through the chokepoint. A failed, forbidden or invalid run is returned as data (status FAILED).",
    args: { input: t.arg({ type: DispatchInput, required: true }) },
    resolve: (_r, { input }, ctx) => {
      const caller = requireCaller(ctx);
      if (input.timeoutSeconds != null && !(input.timeoutSeconds > 0))
        throw ApiError.badInput("timeoutSeconds must be > 0", [{ path: "/input/timeoutSeconds", message: "must be > 0" }]);
      if (input.idempotencyKey != null && (input.idempotencyKey.length < 1 || input.idempotencyKey.length > 200))
        throw ApiError.badInput("idempotencyKey must be 1 to 200 characters", [{ path: "/input/idempotencyKey", message: "must be 1 to 200 characters" }]);
      return ctx.runtime.dispatcher.run({
        tool: input.tool,
        input: input.input,
        caller,
        door: "graphql",
        idempotencyKey: input.idempotencyKey ?? undefined,
        timeoutSeconds: input.timeoutSeconds ?? undefined,
      });
    },
  }),
  cancelRun: t.field({
    type: ToolRunRef,
    description: "Aborts the attempt in flight; no retry follows. Only a run the caller may see (its own, or any for an ADMIN) can be cancelled.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, { id }, ctx) => {
      const caller = requireCaller(ctx);
      const run = await ctx.runtime.runs.get(String(id));
      if (!run || !maySeeRun(caller, run)) throw new ApiError("NOT_FOUND", `no run with id "${id}"`);
      return (await ctx.runtime.dispatcher.cancel(run.id))!;
    },
  }),
}));

builder.subscriptionFields((t) => ({
  runEvents: t.field({
    type: RunEventRef,
    description: "Run events, optionally for one run or tool. With afterSeq, persisted events after it are replayed first, then live ones follow.",
    args: { runId: t.arg.id(), tool: t.arg.string(), afterSeq: t.arg.int() },
    subscribe: async (_r, args, ctx) => {
      const caller = requireCaller(ctx);
      const filter = { runId: args.runId ? String(args.runId) : undefined, tool: args.tool ?? undefined };
      if (filter.runId) {
        const run = await ctx.runtime.runs.get(filter.runId);
        if (!run || !maySeeRun(caller, run)) throw new ApiError("NOT_FOUND", `no run with id "${filter.runId}"`);
      }
      return closeWith(ctx, (signal) => lagAware(replayThenLive(ctx.runtime, filter, args.afterSeq ?? null, signal, caller)));
    },
    resolve: (e: RunEventRecord) => e,
  }),
}));

/** Turns a subscription the server closed (a lagging subscriber, an unreadable gap) into a clear error telling where to resume. */
async function* lagAware(stream: AsyncIterable<RunEventRecord>): AsyncGenerator<RunEventRecord> {
  let last: number | null = null;
  try {
    for await (const e of stream) {
      last = e.seq;
      yield e;
    }
  } catch (e) {
    if (e instanceof ResumableStreamError)
      throw new GraphQLError(`${e.message}; resubscribe with afterSeq: ${last ?? 0} to resume without loss`, { extensions: { code: e.code, afterSeq: last ?? 0 } });
    throw e;
  }
}

export type { GraphQLContext };
