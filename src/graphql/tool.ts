import type { RetryPolicy } from "../retry/policy.ts";
import type { AppliedPolicy } from "../retry/applied-policy.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import { inScope } from "../auth/key-scope.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { ErrorKindEnum, ExecutionModeEnum, TierEnum, ToolOriginEnum } from "./enums.ts";
import { startWith } from "../events/subscription.ts";
import { closeWith } from "./stream.ts";

export const RetryBackoffRef = builder.objectRef<RetryPolicy["backoff"]>("RetryBackoff").implement({
  description: "The wait before retry n: initialSeconds × multiplier^(n−1), capped at capSeconds.",
  fields: (t) => ({
    initialSeconds: t.exposeFloat("initialSeconds", { description: "The wait before the first retry." }),
    multiplier: t.exposeFloat("multiplier", { description: "Each next wait is the last one times this." }),
    capSeconds: t.exposeFloat("capSeconds", {
      description: "The longest wait (a server's Retry-After may exceed it).",
    }),
  }),
});

export const RetryPolicyRef = builder.objectRef<AppliedPolicy>("RetryPolicy").implement({
  description:
    "An effective retry policy. `retryableKinds` is resolved: true → the default transient kinds, false → [].",
  fields: (t) => ({
    maxAttempts: t.exposeInt("maxAttempts", { description: "The total attempt budget, the first included." }),
    idempotent: t.exposeBoolean("idempotent", {
      description: "The tool is safe to run again; required for any retry.",
    }),
    retryableKinds: t.field({
      type: [ErrorKindEnum],
      description: "The failure kinds that are retried.",
      resolve: (p) => [...p.retryableKinds],
    }),
    backoff: t.field({ type: RetryBackoffRef, description: "The waits between attempts.", resolve: (p) => p.backoff }),
    declaredOn: t.exposeString("declaredOn", { description: "The name whose declaration applies (inheritance)." }),
  }),
});

export const ToolRef = builder.objectRef<SurfaceEntry>("Tool").implement({
  description: "One callable name on the surface: a tool, preset, branch, agent or connector tool.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The name dispatch takes." }),
    label: t.string({
      nullable: true,
      description: "A display label, when an extension gave one.",
      resolve: (e) => e.label ?? null,
    }),
    description: t.exposeString("description", { description: "What it does: the text a model reads." }),
    origin: t.field({ type: ToolOriginEnum, description: "Where the name comes from.", resolve: (e) => e.origin }),
    tier: t.field({ type: TierEnum, description: "Who may run it.", resolve: (e) => e.tier }),
    inputSchema: t.field({
      type: "JSONObject",
      description: "JSON Schema draft 2020-12.",
      resolve: (e) => e.inputSchema,
    }),
    outputSchema: t.field({
      type: "JSONObject",
      nullable: true,
      description: "The JSON Schema its result is validated against; null: none.",
      resolve: (e) => e.outputSchema ?? null,
    }),
    executionMode: t.field({
      type: ExecutionModeEnum,
      description: "How an agent runs its calls.",
      resolve: (e) => e.executionMode,
    }),
    pauses: t.exposeBoolean("pauses", { description: "It may park on interactions." }),
    timeoutSeconds: t.exposeFloat("timeoutSeconds", { description: "The per-attempt timeout." }),
    baseTool: t.string({
      nullable: true,
      description: "What a PRESET or BRANCH builds on.",
      resolve: (e) => e.baseTool ?? null,
    }),
    extensionStack: t.stringList({
      description: "A BRANCH's extensions, innermost first.",
      resolve: (e) => e.extensionStack,
    }),
    fixedKwargs: t.field({
      type: "JSONObject",
      nullable: true,
      description: 'A PRESET\'s baked inputs ("!ENV NAME" markers served as markers).',
      resolve: (e) => e.fixedKwargs ?? null,
    }),
    promptSnippet: t.string({
      nullable: true,
      description:
        "The one line the tools agent lists for it under \"## Tools\" in its system message; null: not listed there (a TOOL's declaration, kept or changed by a BRANCH's extensions).",
      resolve: (e) => e.promptSnippet ?? null,
    }),
    promptGuidelines: t.stringList({
      description: 'The rules the tools agent adds under "## Tool guidelines" when it is in a run; empty: none.',
      resolve: (e) => [...(e.promptGuidelines ?? [])],
    }),
    connector: t.string({
      nullable: true,
      description: "The connector a CONNECTOR entry comes from (docs/connectors.md); null: not a connector's.",
      resolve: (e) => e.connector ?? null,
    }),
    annotations: t.field({
      type: "JSONObject",
      nullable: true,
      description:
        "A CONNECTOR entry's upstream annotations, as sent (untrusted: they only propose a tier); null: none.",
      resolve: (e) => e.annotations ?? null,
    }),
    source: t.string({
      nullable: true,
      description:
        "The extension that registered this TOOL (an extension's own tools); null: registered directly, or not a TOOL.",
      resolve: (e) => e.source ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  tools: t.field({
    type: [ToolRef],
    description: "The surface: every name dispatch takes (for a scoped API key, only the names in its scope).",
    args: {
      origin: t.arg({ type: ToolOriginEnum, description: "Only names of this origin." }),
      tier: t.arg({ type: TierEnum, description: "Only names of this tier." }),
      search: t.arg.string({
        description: "Only names whose name, label or description contains this text (any case).",
      }),
    },
    resolve: (_r, args, ctx) => {
      requireCaller(ctx);
      return ctx.surface
        .list({ origin: args.origin ?? undefined, tier: args.tier ?? undefined, search: args.search ?? undefined })
        .filter((e) => !ctx.caller || inScope(ctx.caller, e.name));
    },
  }),
  tool: t.field({
    type: ToolRef,
    nullable: true,
    description: "One name on the surface; null when there is none, or it is outside the API key's scope.",
    args: { name: t.arg.string({ required: true, description: "The name." }) },
    resolve: (_r, { name }, ctx) => {
      requireCaller(ctx);
      const entry = ctx.surface.resolve(name);
      return entry && (!ctx.caller || inScope(ctx.caller, entry.name)) ? entry : null;
    },
  }),
}));

builder.subscriptionFields((t) => ({
  toolsChanged: t.field({
    type: [ToolRef],
    description:
      "The whole surface, each time this server's surface changes (MCP's list_changed); never the list from before the change. With `current: true`, the surface as it is now comes first, so a client that follows the surface across reconnections misses no change.",
    args: {
      current: t.arg.boolean({
        defaultValue: false,
        description:
          "Send the surface as it is now first, once this subscription is listening: no change between a read and the subscription is lost.",
      }),
    },
    subscribe: (_r, args, ctx) => {
      requireCaller(ctx);
      return closeWith(ctx, (signal) => {
        const changes = ctx.runtime.bus.subscribe("toolsChanged", { signal, bufferSize: 16 });
        return args.current
          ? startWith({ at: new Date().toISOString(), version: ctx.runtime.surface.snapshot().version }, changes)
          : changes;
      });
    },
    // The surface as it is now, not as the operation began: the event fires after this instance applied the change.
    resolve: (_p, _a, ctx) => ctx.runtime.surface.list().filter((e) => !ctx.caller || inScope(ctx.caller, e.name)),
  }),
}));
