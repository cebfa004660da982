import type { ExtensionDefinition } from "../extensions/extension.ts";
import type { SpanRecord } from "../extensions/builtin/spans.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { RunStatusEnum } from "./enums.ts";
import { closeWith } from "./stream.ts";
import type { Caller } from "../auth/roles.ts";
import { maySeeRun, runScope } from "../auth/visibility.ts";
import { visibleRecords } from "../dispatch/visible-records.ts";
import type { GraphQLContext } from "./context.ts";

const ExtensionKindEnum = builder.enumType("ExtensionKind", { values: ["WRAPPER", "TRANSFORMER", "BACKEND"] as const });

const ExtensionRef = builder.objectRef<ExtensionDefinition>("Extension").implement({
  description: "A loaded extension; a UI can draw its settings form from configSchema.",
  fields: (t) => ({
    name: t.exposeString("name"),
    kind: t.field({ type: ExtensionKindEnum, resolve: (e) => e.kind }),
    description: t.exposeString("description"),
    pauses: t.exposeBoolean("pauses"),
    configSchema: t.field({ type: "JSONObject", nullable: true, description: "null = accepts no settings.", resolve: (e) => e.configSchema }),
    module: t.exposeString("module"),
  }),
});

export const SpanRef = builder.objectRef<SpanRecord>("Span").implement({
  description: "One traced call of a monitored branch.",
  fields: (t) => ({
    id: t.exposeID("id"),
    tool: t.exposeString("tool"),
    runId: t.exposeID("runId"),
    status: t.field({ type: RunStatusEnum, resolve: (s) => s.status }),
    attributes: t.field({ type: "JSONObject", resolve: (s) => s.attributes }),
    startedAt: t.field({ type: "DateTime", resolve: (s) => s.startedAt }),
    finishedAt: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.finishedAt }),
  }),
});

builder.queryFields((t) => ({
  extensions: t.field({
    type: [ExtensionRef],
    resolve: (_r, _a, ctx) => {
      requireCaller(ctx);
      return ctx.runtime.extensions();
    },
  }),
  recentSpans: t.field({
    type: [SpanRef],
    description: "The latest spans of runs the caller may see, newest first.",
    args: { tool: t.arg.string(), first: t.arg.int() },
    resolve: (_r, { tool, first }, ctx) => {
      const caller = requireCaller(ctx);
      const want = Math.min(Math.max(first ?? 50, 1), 500);
      return visibleRecords(ctx.runtime.runs, runScope(caller), want, (skip, take) => ctx.runtime.spans.list(tool ?? undefined, take, skip));
    },
  }),
}));

builder.subscriptionFields((t) => ({
  spans: t.field({
    type: SpanRef,
    description: "Spans of runs the caller may see, as they open (RUNNING) and close (with status and durationMs).",
    args: { tool: t.arg.string() },
    subscribe: (_r, { tool }, ctx) => {
      const caller = requireCaller(ctx);
      return closeWith(ctx, (signal) => visibleSpans(ctx, caller, ctx.runtime.bus.subscribe("span", { signal, filter: (s) => !tool || s.tool === tool })));
    },
    resolve: (s: SpanRecord) => s,
  }),
}));

/** The spans of `stream` whose run `caller` may see; each run is looked up once. */
async function* visibleSpans(ctx: GraphQLContext, caller: Caller, stream: AsyncIterable<SpanRecord>): AsyncGenerator<SpanRecord> {
  const seen = new Map<string, boolean>();
  for await (const span of stream) {
    let visible = seen.get(span.runId);
    if (visible === undefined) {
      const run = await ctx.runtime.runs.get(span.runId);
      visible = Boolean(run && maySeeRun(caller, run));
      if (seen.size > 1000) seen.clear();
      seen.set(span.runId, visible);
    }
    if (visible) yield span;
  }
}
