import type { ThreadView } from "../agent/threads.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { ThreadMessageRoleEnum } from "./enums.ts";

const ThreadMessageRef = builder.objectRef<ThreadView["messages"][number]>("ThreadMessage").implement({
  description: "One message of a thread.",
  fields: (t) => ({
    role: t.field({ type: ThreadMessageRoleEnum, description: "Who wrote it.", resolve: (m) => m.role }),
    content: t.exposeString("content", { description: "Its display text." }),
    at: t.field({ type: "DateTime", description: "When it was recorded.", resolve: (m) => m.at }),
    data: t.field({
      type: "JSON",
      nullable: true,
      description: "The provider-level message (tool calls, tool results) a later run replays.",
      resolve: (m) => m.data,
    }),
  }),
});

export const ThreadRef = builder.objectRef<ThreadView>("Thread").implement({
  description: "A persisted agent conversation; any instance can continue it.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The thread's id (AgentRunInput.threadId)." }),
    messages: t.field({
      type: [ThreadMessageRef],
      description: "Every message, oldest first.",
      resolve: (v) => v.messages,
    }),
    createdAt: t.field({ type: "DateTime", description: "When it was created.", resolve: (v) => v.createdAt }),
    updatedAt: t.field({
      type: "DateTime",
      description: "When a message was last added.",
      resolve: (v) => v.updatedAt,
    }),
  }),
});

builder.queryFields((t) => ({
  thread: t.field({
    type: ThreadRef,
    nullable: true,
    description: "A thread, for the caller who created it (with its first run or appendThreadMessages) or an ADMIN.",
    args: { id: t.arg.id({ required: true, description: "The thread's id." }) },
    resolve: (_r, { id }, ctx) => ctx.runtime.agents.thread(String(id), requireCaller(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  appendThreadMessages: t.field({
    type: ThreadRef,
    description: "Records { role: user|assistant, content } messages in a thread without running an agent.",
    args: {
      threadId: t.arg.string({ required: true, description: "The thread; created when it does not exist." }),
      messages: t.arg({
        type: ["JSONObject"],
        required: true,
        description: "The messages: { role: user|assistant, content }.",
      }),
      agent: t.arg.string({ description: "The agent whose threads these are; default: the built-in tools agent." }),
    },
    resolve: (_r, args, ctx) =>
      ctx.runtime.agents.appendThreadMessages(args.agent, args.threadId, args.messages, requireCaller(ctx)),
  }),
}));
