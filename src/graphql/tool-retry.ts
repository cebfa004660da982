import { appliedPolicy, retryExplained } from "../retry/applied-policy.ts";
import { builder } from "./builder.ts";
import { RetryPolicyRef, ToolRef } from "./tool.ts";

/** A tool's retry policy and why it applies (docs/run-lifecycle.md §3), beside its other fields. */
builder.objectFields(ToolRef, (t) => ({
  retryPolicy: t.field({
    type: RetryPolicyRef,
    nullable: true,
    description: "null = exactly one attempt.",
    resolve: (e, _a, ctx) => appliedPolicy(ctx.surface.policyFor(e)),
  }),
  retryExplained: t.string({
    description:
      "Why a run gets the attempts it gets, in words: the name its policy was declared on, or why it has none (a BRANCH inherits nothing from what it wraps).",
    resolve: (e, _a, ctx) => retryExplained(e, ctx.surface.policyFor(e)),
  }),
}));
