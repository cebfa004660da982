import type { RetryPolicy } from "../retry/policy.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { ErrorKindEnum, ExecutionModeEnum, TierEnum, ToolOriginEnum } from "./enums.ts";
import { closeWith } from "./stream.ts";

export const RetryBackoffRef = builder.objectRef<RetryPolicy["backoff"]>("RetryBackoff").implement({
  fields: (t) => ({
    initialSeconds: t.exposeFloat("initialSeconds"),
    multiplier: t.exposeFloat("multiplier"),
    capSeconds: t.exposeFloat("capSeconds"),
  }),
});

/** A policy with the name whose declaration applies. */
export type PolicyView = RetryPolicy & { declaredOn: string };

export const RetryPolicyRef = builder.objectRef<PolicyView>("RetryPolicy").implement({
  description: "An effective retry policy. `retryableKinds` is resolved: true → the default transient kinds, false → [].",
  fields: (t) => ({
    maxAttempts: t.exposeInt("maxAttempts"),
    idempotent: t.exposeBoolean("idempotent"),
    retryableKinds: t.field({ type: [ErrorKindEnum], resolve: (p) => [...p.retryableKinds] }),
    backoff: t.field({ type: RetryBackoffRef, resolve: (p) => p.backoff }),
    declaredOn: t.exposeString("declaredOn", { description: "The name whose declaration applies (inheritance)." }),
  }),
});

export const ToolRef = builder.objectRef<SurfaceEntry>("Tool").implement({
  description: "One callable name on the surface: a tool, preset, branch or agent.",
  fields: (t) => ({
    name: t.exposeString("name"),
    label: t.string({ nullable: true, resolve: (e) => e.label ?? null }),
    description: t.exposeString("description"),
    origin: t.field({ type: ToolOriginEnum, resolve: (e) => e.origin }),
    tier: t.field({ type: TierEnum, resolve: (e) => e.tier }),
    inputSchema: t.field({ type: "JSONObject", description: "JSON Schema draft 2020-12.", resolve: (e) => e.inputSchema }),
    outputSchema: t.field({ type: "JSONObject", nullable: true, resolve: (e) => e.outputSchema ?? null }),
    executionMode: t.field({ type: ExecutionModeEnum, resolve: (e) => e.executionMode }),
    retryPolicy: t.field({
      type: RetryPolicyRef,
      nullable: true,
      description: "null = exactly one attempt.",
      resolve: (e, _a, ctx) => {
        const p = ctx.surface.policyFor(e);
        return p ? { ...p.policy, declaredOn: p.declaredOn } : null;
      },
    }),
    pauses: t.exposeBoolean("pauses"),
    timeoutSeconds: t.exposeFloat("timeoutSeconds"),
    baseTool: t.string({ nullable: true, resolve: (e) => e.baseTool ?? null }),
    extensionStack: t.stringList({ resolve: (e) => e.extensionStack }),
    fixedKwargs: t.field({ type: "JSONObject", nullable: true, resolve: (e) => e.fixedKwargs ?? null }),
  }),
});

builder.queryFields((t) => ({
  tools: t.field({
    type: [ToolRef],
    args: { origin: t.arg({ type: ToolOriginEnum }), tier: t.arg({ type: TierEnum }), search: t.arg.string() },
    resolve: (_r, args, ctx) => {
      requireCaller(ctx);
      return ctx.surface.list({ origin: args.origin ?? undefined, tier: args.tier ?? undefined, search: args.search ?? undefined });
    },
  }),
  tool: t.field({
    type: ToolRef,
    nullable: true,
    args: { name: t.arg.string({ required: true }) },
    resolve: (_r, { name }, ctx) => {
      requireCaller(ctx);
      return ctx.surface.resolve(name) ?? null;
    },
  }),
}));

builder.subscriptionFields((t) => ({
  toolsChanged: t.field({
    type: [ToolRef],
    description: "The whole surface, each time this server's surface changes (MCP's list_changed); never the list from before the change.",
    subscribe: (_r, _a, ctx) => {
      requireCaller(ctx);
      return closeWith(ctx, (signal) => ctx.runtime.bus.subscribe("toolsChanged", { signal, bufferSize: 16 }));
    },
    // The surface as it is now, not as the operation began: the event fires after this instance applied the change.
    resolve: (_p, _a, ctx) => ctx.runtime.surface.list(),
  }),
}));
