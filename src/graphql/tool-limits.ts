import { appliedLimits } from "../dispatch/run-limits.ts";
import { builder } from "./builder.ts";
import { AppliedLimitRef } from "./limits.ts";
import { ToolRef } from "./tool.ts";

/** A tool's limits and its breaker's state (docs/flow-control.md §6), beside its other fields. */
builder.objectFields(ToolRef, (t) => ({
  limits: t.field({
    type: [AppliedLimitRef],
    description:
      "The limits a run is under: the declaration of each name along its chain, nearest first (docs/flow-control.md); empty: none.",
    resolve: (e, _a, ctx) => [...appliedLimits(ctx.surface, e)],
  }),
  breakerOpenSeconds: t.float({
    nullable: true,
    description:
      "How long a circuit breaker along its chain stays open (0: closed; half-open lets one trial through); null: it declares none.",
    resolve: (e, _a, ctx) => ctx.runtime.flow.breakerOpenSeconds(appliedLimits(ctx.surface, e)),
  }),
}));
