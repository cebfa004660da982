import { SETTLED_STATUSES, type SettledStatus } from "../dispatch/run-operator.ts";
import { requireCaller } from "./context.ts";
import { builder } from "./builder.ts";
import { ToolRunRef } from "./run.ts";

/*
 * An operator's actions on a run whose outcome is unknown (docs/run-lifecycle.md §11.5): retry it, or settle it.
 */

const SettledStatusEnum = builder.enumType("SettledStatus", {
  description: "What an operator settles a run whose outcome is unknown with.",
  values: Object.fromEntries(
    SETTLED_STATUSES.map((s) => [
      s,
      {
        value: s,
        description: {
          SUCCEEDED: "Its body took effect.",
          FAILED: "Its body did not take effect, or failed.",
          CANCELLED: "It is abandoned.",
        }[s],
      },
    ]),
  ) as Record<SettledStatus, { value: SettledStatus; description: string }>,
});

builder.mutationFields((t) => ({
  retryRun: t.field({
    type: ToolRunRef,
    description:
      "Queues a run whose outcome is unknown (OUTCOME_UNKNOWN) to be executed again, as its next attempt, under the same id. For the run's owner or an ADMIN (NOT_FOUND otherwise); CONFLICT when its outcome is known; BAD_USER_INPUT when its input was not stored as it ran.",
    args: { id: t.arg.id({ required: true, description: "The run's id." }) },
    resolve: (_r, { id }, ctx) => ctx.runtime.dispatcher.retryUnknown(requireCaller(ctx), String(id)),
  }),
  settleRun: t.field({
    type: ToolRunRef,
    description:
      "Ends a run whose outcome is unknown (OUTCOME_UNKNOWN) with the outcome an operator established; details.settled names who settled it. For the run's owner or an ADMIN (NOT_FOUND otherwise); CONFLICT when its outcome is known.",
    args: {
      id: t.arg.id({ required: true, description: "The run's id." }),
      status: t.arg({ type: SettledStatusEnum, required: true, description: "Its outcome." }),
      message: t.arg.string({ description: "Why; stored on the run (its errorMessage when not SUCCEEDED)." }),
    },
    resolve: (_r, { id, status, message }, ctx) =>
      ctx.runtime.dispatcher.settleUnknown(requireCaller(ctx), String(id), status, message ?? null),
  }),
}));
