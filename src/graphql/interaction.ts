import { isRedacted, REDACTED } from "../auth/tiers.ts";
import { requireVisibleRun } from "../auth/visibility.ts";
import { visibleStream } from "../dispatch/visible-records.ts";
import type { PublishedInteraction } from "../interactions/interaction-store.ts";
import type { InteractionRecord } from "../interactions/park.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { InteractionRecipientEnum, InteractionStatusEnum } from "./enums.ts";
import { ToolRunRef } from "./run.ts";
import { closeWith } from "./stream.ts";

export const InteractionRef = builder.objectRef<InteractionRecord>("Interaction").implement({
  description: "A question a parked run waits on.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The interaction's id; answerInteraction takes it." }),
    runId: t.exposeID("runId", { description: "The run that opened it." }),
    tool: t.exposeString("tool", { description: "The tool that opened it." }),
    question: t.exposeString("question", { description: "What is asked." }),
    to: t.field({ type: InteractionRecipientEnum, description: "Who answers.", resolve: (i) => i.to }),
    answerFormat: t.field({
      type: "JSONObject",
      nullable: true,
      description: "The JSON Schema an answer must match; null: any JSON.",
      resolve: (i) => i.answerFormat,
    }),
    status: t.field({
      type: InteractionStatusEnum,
      description: "Open (PENDING) or how it closed.",
      resolve: (i) => i.status,
    }),
    expiresAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it expires unanswered (its run then fails with TIMEOUT); null: never.",
      resolve: (i) => i.expiresAt,
    }),
    answer: t.field({
      type: "JSON",
      nullable: true,
      description: 'The answer, once ANSWERED; "[redacted]" for a SECRET tool\'s run.',
      // "[redacted]" for a secret-tier tool's run: the answer becomes its output.
      resolve: async (i, _a, ctx) => {
        // One from the bus carries no answer (it never crosses it): the stored one is read.
        const answer = i.answer === undefined ? ((await ctx.runtime.interactions.get(i.id))?.answer ?? null) : i.answer;
        if (answer === null) return null;
        // The tier the run ran at, as stored: today's surface may hold another entry of that name.
        const run = await ctx.runtime.runs.get(i.runId);
        const secret = run?.tier ? isRedacted(run.tier) : run ? run.input === REDACTED : true;
        return secret ? REDACTED : answer;
      },
    }),
    answeredAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it was answered.",
      resolve: (i) => i.answeredAt,
    }),
    callbackUrl: t.string({
      nullable: true,
      description:
        "Only the tool that opened the interaction ever sees its callback URL; the token is stored hashed, so reads serve null.",
      resolve: () => null,
    }),
    createdAt: t.field({ type: "DateTime", description: "When it opened.", resolve: (i) => i.createdAt }),
  }),
});

builder.objectField(ToolRunRef, "interactions", (t) =>
  t.field({
    type: [InteractionRef],
    description: "The run's interactions (when PARKED, the ones it waits on).",
    resolve: (r, _a, ctx) => ctx.runtime.interactions.forRun(r.id),
  }),
);

builder.queryFields((t) => ({
  interactions: t.field({
    type: [InteractionRef],
    args: { status: t.arg({ type: InteractionStatusEnum, description: "Only interactions in this status." }) },
    description: "The newest 500 interactions of runs the caller may see.",
    resolve: (_r, { status }, ctx) => ctx.runtime.interactions.list(status ?? undefined, requireCaller(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  answerInteraction: t.field({
    type: ToolRunRef,
    description:
      "Answers an interaction (validated against its answerFormat; a second answer is refused) and resumes the run once its interactions are all answered.",
    args: {
      id: t.arg.id({ required: true, description: "The interaction's id." }),
      answer: t.arg({
        type: "JSON",
        required: true,
        description: "The answer; must match the interaction's answerFormat.",
      }),
    },
    resolve: (_r, { id, answer }, ctx) => ctx.runtime.interactions.answer(String(id), answer, requireCaller(ctx)),
  }),
}));

builder.subscriptionFields((t) => ({
  interactionsChanged: t.field({
    type: InteractionRef,
    description:
      "Interactions of runs the caller may see, each time one opens (PENDING) and when it closes (ANSWERED, EXPIRED or CANCELLED), from any instance.",
    args: {
      runId: t.arg.id({ description: "Only this run's interactions; NOT_FOUND when the caller may not see it." }),
    },
    subscribe: async (_r, args, ctx) => {
      const caller = requireCaller(ctx);
      const runId = args.runId == null ? undefined : String(args.runId);
      if (runId) requireVisibleRun(caller, await ctx.runtime.runs.get(runId), runId);
      return closeWith(ctx, (signal) =>
        visibleStream(
          ctx.runtime.runs,
          caller,
          ctx.runtime.bus.subscribe("interaction", {
            signal,
            bufferSize: 1000,
            filter: (i) => !runId || i.runId === runId,
          }),
        ),
      );
    },
    resolve: (i: PublishedInteraction): InteractionRecord => ({ ...i, answer: undefined }),
  }),
}));
