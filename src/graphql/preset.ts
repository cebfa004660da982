import { appliedLimits } from "../dispatch/run-limits.ts";
import { AppliedLimitRef } from "./limits.ts";
import type { Preset } from "../presets/preset.ts";
import type { PresetInput } from "../presets/preset-service.ts";
import { appliedPolicy } from "../retry/applied-policy.ts";
import type { RetryPolicyInit } from "../retry/policy.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { TierEnum } from "./enums.ts";
import { RetryPolicyRef } from "./tool.ts";

export const RetryPolicyInput = builder.inputType("RetryPolicyInput", {
  description: "A retry policy to declare (docs/run-lifecycle.md); omitted backoff values take the defaults.",
  fields: (t) => ({
    maxAttempts: t.int({
      required: true,
      description: "The total attempt budget, the first included: 1 means no retry.",
    }),
    idempotent: t.boolean({ required: true, description: "Required true when maxAttempts > 1." }),
    retryable: t.field({ type: "JSON", description: "true (default transient kinds) | false | [ErrorKind]" }),
    initialSeconds: t.float({ description: "The wait before the first retry." }),
    multiplier: t.float({ description: "Each next wait is the last one times this." }),
    capSeconds: t.float({ description: "The longest wait." }),
  }),
});

type RetryPolicyArg = {
  maxAttempts: number;
  idempotent: boolean;
  retryable?: unknown;
  initialSeconds?: number | null;
  multiplier?: number | null;
  capSeconds?: number | null;
};

/** The GraphQL input of a retry policy as the domain declares it. */
export function policyInit(p: RetryPolicyArg | null | undefined): RetryPolicyInit | null {
  if (!p) return null;
  const backoff = Object.fromEntries(
    Object.entries({ initialSeconds: p.initialSeconds, multiplier: p.multiplier, capSeconds: p.capSeconds }).filter(
      ([, v]) => v !== null && v !== undefined,
    ),
  );
  return {
    maxAttempts: p.maxAttempts,
    idempotent: p.idempotent,
    ...(p.retryable !== undefined && p.retryable !== null ? { retryable: p.retryable as never } : {}),
    ...(Object.keys(backoff).length ? { backoff } : {}),
  };
}

const PresetInputRef = builder.inputType("PresetInput", {
  description: "A stored preset: a base tool run with baked inputs.",
  fields: (t) => ({
    name: t.string({ required: true, description: "The name it is dispatched by; wire-safe." }),
    description: t.string({ required: true, description: "What a model reads." }),
    baseTool: t.string({ required: true, description: "A tool, a branch or another preset." }),
    fixedKwargs: t.field({
      type: "JSONObject",
      required: true,
      description: 'Baked inputs; "!ENV NAME" is resolved from the environment when the preset runs.',
    }),
    retryPolicy: t.field({
      type: RetryPolicyInput,
      description: "Omit to inherit the first declared ancestor's policy.",
    }),
    limits: t.field({
      type: "JSONObject",
      description:
        "ADMIN only: concurrency, rate and breaker on this preset ({ concurrency: { max, scope, waitSeconds }, rate: { tokens, intervalSeconds, burst, per }, breaker: { failures, coolDownSeconds } }, docs/flow-control.md §2); its runs also count against its ancestors' limits. null clears them; omitted, an update keeps them.",
    }),
  }),
});

export const PresetRef = builder.objectRef<Preset>("Preset").implement({
  description: "A stored composition: a base tool run with baked inputs.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The name it is dispatched by." }),
    description: t.exposeString("description", { description: "What a model reads." }),
    baseTool: t.exposeString("baseTool", { description: "The tool, branch or preset it builds on." }),
    fixedKwargs: t.field({
      type: "JSONObject",
      description: '"!ENV NAME" markers are served as markers.',
      resolve: (p) => p.fixedKwargs,
    }),
    retryPolicy: t.field({
      type: RetryPolicyRef,
      nullable: true,
      description: "The effective policy: its own declaration, or the first declared ancestor's.",
      resolve: (p, _a, ctx) => {
        const entry = ctx.surface.base(p.name);
        const own = p.retryPolicy ? { policy: p.retryPolicy, declaredOn: p.name } : undefined;
        return appliedPolicy((entry ? ctx.surface.policyFor(entry) : undefined) ?? own);
      },
    }),
    limits: t.field({
      type: [AppliedLimitRef],
      description: "The limits its runs are under, its own first, then its ancestors' (Tool.limits); empty: none.",
      resolve: (p, _a, ctx) => {
        const entry = ctx.surface.base(p.name);
        return entry ? [...appliedLimits(ctx.surface, entry)] : p.limits ? [{ name: p.name, limits: p.limits }] : [];
      },
    }),
    tier: t.field({
      type: TierEnum,
      description: "The base's tier.",
      resolve: (p, _a, ctx) => ctx.surface.base(p.baseTool)?.tier ?? "read",
    }),
    version: t.exposeInt("version", { description: "1 at creation, +1 per update; updatePreset's expectedVersion." }),
    createdAt: t.field({ type: "DateTime", description: "When it was created.", resolve: (p) => p.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: "When it last changed.", resolve: (p) => p.updatedAt }),
  }),
});

function toInput(i: {
  name: string;
  description: string;
  baseTool: string;
  fixedKwargs: Record<string, unknown>;
  retryPolicy?: RetryPolicyArg | null;
  limits?: Record<string, unknown> | null;
}): PresetInput {
  return {
    name: i.name,
    description: i.description,
    baseTool: i.baseTool,
    fixedKwargs: i.fixedKwargs,
    retryPolicy: policyInit(i.retryPolicy),
    ...(i.limits !== undefined ? { limits: i.limits as PresetInput["limits"] } : {}),
  };
}

builder.queryFields((t) => ({
  presets: t.field({
    type: [PresetRef],
    description: "Every stored preset.",
    resolve: (_r, _a, ctx) => {
      requireCaller(ctx);
      return ctx.runtime.presets.list();
    },
  }),
  preset: t.field({
    type: PresetRef,
    nullable: true,
    description: "One stored preset; null when there is none.",
    args: { name: t.arg.string({ required: true, description: "The preset's name." }) },
    resolve: (_r, { name }, ctx) => {
      requireCaller(ctx);
      return ctx.runtime.presets.get(name);
    },
  }),
}));

builder.mutationFields((t) => ({
  createPreset: t.field({
    type: PresetRef,
    description:
      "Stores a new preset (CONFLICT when the name is taken). !ENV markers: ADMIN only; over fenced or secret bases: ADMIN only.",
    args: { input: t.arg({ type: PresetInputRef, required: true, description: "The preset." }) },
    resolve: (_r, { input }, ctx) => ctx.runtime.presets.create(toInput(input), requireCaller(ctx)),
  }),
  updatePreset: t.field({
    type: PresetRef,
    description:
      "Applies only if the stored version is expectedVersion (else CONFLICT), and only if every preset and manifest branch built on it stays valid (else CONFLICT naming them).",
    args: {
      name: t.arg.string({ required: true, description: "The preset to update." }),
      input: t.arg({ type: PresetInputRef, required: true, description: "Its new definition." }),
      expectedVersion: t.arg.int({ required: true, description: "The version read before the change." }),
    },
    resolve: (_r, { name, input, expectedVersion }, ctx) =>
      ctx.runtime.presets.update(name, toInput(input), expectedVersion, requireCaller(ctx)),
  }),
  deletePreset: t.boolean({
    description: "Refused (CONFLICT) while other presets build on it or the active manifest names it, naming them.",
    args: { name: t.arg.string({ required: true, description: "The preset's name." }) },
    resolve: async (_r, { name }, ctx) => {
      await ctx.runtime.presets.delete(name, requireCaller(ctx));
      return true;
    },
  }),
}));
