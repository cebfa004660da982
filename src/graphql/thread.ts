import type { ThreadView } from "../agent/threads.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";

const ThreadMessageRef = builder.objectRef<ThreadView["messages"][number]>("ThreadMessage").implement({
  fields: (t) => ({
    role: t.exposeString("role", { description: "user | assistant | tool" }),
    content: t.exposeString("content"),
    at: t.field({ type: "DateTime", resolve: (m) => m.at }),
    data: t.field({ type: "JSON", nullable: true, description: "The provider-level message (tool calls, tool results) a later run replays.", resolve: (m) => m.data }),
  }),
});

const ThreadRef = builder.objectRef<ThreadView>("Thread").implement({
  description: "A persisted agent conversation; any instance can continue it.",
  fields: (t) => ({
    id: t.exposeID("id"),
    messages: t.field({ type: [ThreadMessageRef], resolve: (v) => v.messages }),
    createdAt: t.field({ type: "DateTime", resolve: (v) => v.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (v) => v.updatedAt }),
  }),
});

builder.queryFields((t) => ({
  thread: t.field({
    type: ThreadRef,
    nullable: true,
    description: "A thread, for the caller who created it (with its first run or appendThreadMessages) or an ADMIN.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => ctx.runtime.agents.thread(String(id), requireCaller(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  appendThreadMessages: t.field({
    type: ThreadRef,
    description: "Records { role: user|assistant, content } messages in a thread without running an agent.",
    args: { threadId: t.arg.string({ required: true }), messages: t.arg({ type: ["JSONObject"], required: true }), agent: t.arg.string() },
    resolve: (_r, args, ctx) => ctx.runtime.agents.appendThreadMessages(args.agent, args.threadId, args.messages, requireCaller(ctx)),
  }),
}));
