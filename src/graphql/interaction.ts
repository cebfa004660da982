import { isRedacted, REDACTED } from "../auth/tiers.ts";
import type { InteractionRecord } from "../interactions/park.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { ToolRunRef } from "./run.ts";

export const InteractionRef = builder.objectRef<InteractionRecord>("Interaction").implement({
  description: "A question a parked run waits on.",
  fields: (t) => ({
    id: t.exposeID("id"),
    runId: t.exposeID("runId"),
    tool: t.exposeString("tool"),
    question: t.exposeString("question"),
    to: t.exposeString("to", { description: "user | caller" }),
    answerFormat: t.field({ type: "JSONObject", nullable: true, resolve: (i) => i.answerFormat }),
    status: t.exposeString("status", { description: "PENDING | ANSWERED | EXPIRED | CANCELLED" }),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (i) => i.expiresAt }),
    answer: t.field({
      type: "JSON",
      nullable: true,
      // "[redacted]" for a secret-tier tool's run: the answer becomes its output.
      resolve: async (i, _a, ctx) => {
        if (i.answer === null) return null;
        const entry = ctx.runtime.surface.base(i.tool);
        const secret = entry ? isRedacted(entry.tier) : (await ctx.runtime.runs.get(i.runId))?.input === REDACTED;
        return secret ? REDACTED : i.answer;
      },
    }),
    answeredAt: t.field({ type: "DateTime", nullable: true, resolve: (i) => i.answeredAt }),
    callbackUrl: t.string({
      nullable: true,
      description: "Only the tool that opened the interaction ever sees its callback URL; the token is stored hashed, so reads serve null.",
      resolve: () => null,
    }),
    createdAt: t.field({ type: "DateTime", resolve: (i) => i.createdAt }),
  }),
});

builder.objectField(ToolRunRef, "interactions", (t) =>
  t.field({ type: [InteractionRef], description: "The run's interactions (when PARKED, the ones it waits on).", resolve: (r, _a, ctx) => ctx.runtime.interactions.forRun(r.id) }),
);

builder.queryFields((t) => ({
  interactions: t.field({
    type: [InteractionRef],
    args: { status: t.arg.string({ description: "PENDING | ANSWERED | EXPIRED | CANCELLED" }) },
    description: "The newest 500 interactions of runs the caller may see.",
    resolve: (_r, { status }, ctx) => ctx.runtime.interactions.list(status ?? undefined, requireCaller(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  answerInteraction: t.field({
    type: ToolRunRef,
    description: "Answers an interaction (validated against its answerFormat; a second answer is refused) and resumes the run once its interactions are all answered.",
    args: { id: t.arg.id({ required: true }), answer: t.arg({ type: "JSON", required: true }) },
    resolve: (_r, { id, answer }, ctx) => ctx.runtime.interactions.answer(String(id), answer, requireCaller(ctx)),
  }),
}));
