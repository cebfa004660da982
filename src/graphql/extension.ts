import type { ExtensionDefinition } from "../extensions/extension.ts";
import type { SpanRecord } from "../extensions/builtin/spans.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { ExtensionKindEnum, RunStatusEnum } from "./enums.ts";
import { closeWith } from "./stream.ts";
import { runScope } from "../auth/visibility.ts";
import { visibleRecords, visibleStream } from "../dispatch/visible-records.ts";

const ExtensionRef = builder.objectRef<ExtensionDefinition>("Extension").implement({
  description: "A loaded extension; a UI can draw its settings form from configSchema.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The name a manifest attaches it by." }),
    kind: t.field({
      type: ExtensionKindEnum,
      description: "What it does to the tool it wraps.",
      resolve: (e) => e.kind,
    }),
    description: t.exposeString("description", { description: "What it does." }),
    pauses: t.exposeBoolean("pauses", { description: "Its branches may park on interactions." }),
    configSchema: t.field({
      type: "JSONObject",
      nullable: true,
      description: "null = accepts no settings.",
      resolve: (e) => e.configSchema,
    }),
    module: t.exposeString("module", { description: 'The module that registered it ("builtin" for built-ins).' }),
    tools: t.stringList({
      description:
        "The tools it registered itself (Tool.source names it), as far as they are on the surface: curated or unselected ones are left out.",
      resolve: (e, _a, ctx) =>
        (e.tools ?? []).map((tool) => tool.name).filter((name) => ctx.surface.resolve(name) !== undefined),
    }),
  }),
});

export const SpanRef = builder.objectRef<SpanRecord>("Span").implement({
  description: "One traced call of a monitored branch.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The span's id." }),
    tool: t.exposeString("tool", { description: "The traced name." }),
    runId: t.exposeID("runId", { description: "The run it traced." }),
    status: t.field({
      type: RunStatusEnum,
      description: "RUNNING while open, then how the call ended.",
      resolve: (s) => s.status,
    }),
    attributes: t.field({
      type: "JSONObject",
      description: "What the monitor recorded (attempt, caller role, input unless SECRET, error).",
      resolve: (s) => s.attributes,
    }),
    startedAt: t.field({ type: "DateTime", description: "When the call began.", resolve: (s) => s.startedAt }),
    finishedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it ended; null while open.",
      resolve: (s) => s.finishedAt,
    }),
    durationMs: t.float({
      nullable: true,
      description: "Milliseconds from start to end; null while open.",
      resolve: durationMs,
    }),
  }),
});

/** A closed span's duration: as recorded when it closed, else from its times. */
function durationMs(s: SpanRecord): number | null {
  if (!s.finishedAt) return null;
  const recorded = s.attributes.durationMs;
  return typeof recorded === "number" ? recorded : new Date(s.finishedAt).getTime() - new Date(s.startedAt).getTime();
}

builder.queryFields((t) => ({
  extensions: t.field({
    type: [ExtensionRef],
    description: "Every loaded extension: built-ins, then modules'.",
    resolve: (_r, _a, ctx) => {
      requireCaller(ctx);
      return ctx.runtime.extensions();
    },
  }),
  recentSpans: t.field({
    type: [SpanRef],
    description: "The latest spans of runs the caller may see, newest first.",
    args: {
      tool: t.arg.string({ description: "Only spans of this name." }),
      first: t.arg.int({ description: "How many, 1 to 500 (default 50)." }),
    },
    resolve: (_r, { tool, first }, ctx) => {
      const caller = requireCaller(ctx);
      const want = Math.min(Math.max(first ?? 50, 1), 500);
      return visibleRecords(ctx.runtime.runs, runScope(caller), want, (skip, take) =>
        ctx.runtime.spans.list(tool ?? undefined, take, skip),
      );
    },
  }),
}));

builder.subscriptionFields((t) => ({
  spans: t.field({
    type: SpanRef,
    description: "Spans of runs the caller may see, as they open (RUNNING) and close (with status and durationMs).",
    args: { tool: t.arg.string({ description: "Only spans of this name." }) },
    subscribe: (_r, { tool }, ctx) => {
      const caller = requireCaller(ctx);
      return closeWith(ctx, (signal) =>
        visibleStream(
          ctx.runtime.runs,
          caller,
          ctx.runtime.bus.subscribe("span", { signal, filter: (s) => !tool || s.tool === tool }),
        ),
      );
    },
    resolve: (s: SpanRecord) => s,
  }),
}));
