import type { AgentEventRecord } from "../agent/events.ts";
import { builder } from "./builder.ts";

type Ev<T extends AgentEventRecord["type"]> = Extract<AgentEventRecord, { type: T }>;

const StreamEventBaseRef = builder.interfaceRef<AgentEventRecord>("StreamEventBase").implement({
  description: "Fields every agent stream event carries (docs/agent-stream.md §2).",
  fields: (t) => ({
    type: t.exposeString("type", { description: 'The snake_case member name, e.g. "message_delta".' }),
    final: t.exposeBoolean("final", { description: "True for the one terminal event of a run." }),
    seq: t.exposeInt("seq", { description: "1 for a run's first event, then +1 for each next one." }),
    runId: t.exposeID("runId", { description: "The agent run it belongs to." }),
    agent: t.string({
      nullable: true,
      description: "The sub-agent that produced the event; null for the run's own agent.",
      resolve: (e) => e.agent ?? null,
    }),
  }),
});

function member<T extends AgentEventRecord["type"]>(
  name: string,
  type: T,
  description: string,
  fields: Parameters<ReturnType<typeof builder.objectRef<Ev<T>>>["implement"]>[0]["fields"],
) {
  return builder.objectRef<Ev<T>>(name).implement({
    description,
    interfaces: [StreamEventBaseRef],
    isTypeOf: (e) => (e as AgentEventRecord).type === type,
    fields,
  });
}

// Nullable in the schema though always set, so that one selection may ask `turn` of the deltas and of the answer
// terminals (whose `turn` may be null) without aliases.
const TURN =
  "The model turn of the event's agent that wrote it: 1, 2, … never reused in a run (docs/agent-stream.md §2.2). Always set on a delta.";
const MessageDeltaRef = member(
  "MessageDelta",
  "message_delta",
  "A token-level chunk of the run's own model text as the model writes it (docs/agent-stream.md §2.2).",
  (t) => ({
    text: t.exposeString("text", {
      description: "The chunk; joined, the MessageDelta texts whose turn is the terminal's turn are its answer.",
    }),
    turn: t.int({ nullable: true, description: TURN, resolve: (e) => e.turn ?? 1 }),
  }),
);
const IntermediateDeltaRef = member(
  "IntermediateDelta",
  "intermediate_delta",
  "A chunk of a sub-agent's text, never the run's answer.",
  (t) => ({
    text: t.exposeString("text", {
      description: "The chunk; the chunks of one agent and turn join to that turn's text.",
    }),
    turn: t.int({ nullable: true, description: TURN, resolve: (e) => e.turn ?? 1 }),
  }),
);
const MessageFinalRef = member("MessageFinal", "message_final", "The plain-text answer. Terminal.", (t) => ({
  text: t.exposeString("text", { description: "The whole answer." }),
  turn: t.int({
    nullable: true,
    description: "The turn whose MessageDeltas joined are the answer; null when no delta carried it.",
    resolve: (e) => e.turn ?? null,
  }),
}));
const ReasoningStepRef = member(
  "ReasoningStep",
  "reasoning_step",
  "One block of the model's reasoning; never blank.",
  (t) => ({
    text: t.exposeString("text", { description: "The reasoning text." }),
  }),
);
const RunUsageRef = member(
  "RunUsage",
  "run_usage",
  "Token totals of the run's model calls, right before the terminal.",
  (t) => ({
    inputTokens: t.int({
      nullable: true,
      description: "Prompt tokens, when the provider reports them.",
      resolve: (e) => e.inputTokens,
    }),
    outputTokens: t.int({
      nullable: true,
      description: "Completion tokens, when the provider reports them.",
      resolve: (e) => e.outputTokens,
    }),
    totalTokens: t.int({
      nullable: true,
      description: "All tokens, when the provider reports them.",
      resolve: (e) => e.totalTokens,
    }),
    model: t.string({ nullable: true, description: "The model that answered.", resolve: (e) => e.model }),
  }),
);
const StructuredFinalRef = member(
  "StructuredFinal",
  "structured_final",
  "A structured answer (the validated responseFormat object). Terminal.",
  (t) => ({
    data: t.field({
      type: "JSON",
      nullable: true,
      description: "The answer, valid against the run's responseFormat.",
      resolve: (e) => e.data,
    }),
    turn: t.int({
      nullable: true,
      description:
        "The turn whose MessageDeltas joined are the JSON text it was parsed from; null when it came from a tool result.",
      resolve: (e) => e.turn ?? null,
    }),
  }),
);
const ToolCallStepRef = member("ToolCallStep", "tool_call_step", "One tool call the model made.", (t) => ({
  tool: t.exposeString("tool", { description: "The tool called." }),
  args: t.field({ type: "JSONObject", description: "Its arguments.", resolve: (e) => e.args }),
  callId: t.exposeString("callId", { description: "Pairs the call with its ToolResultStep." }),
  resumedInterruptId: t.string({
    nullable: true,
    description:
      "On a resumed run: the interruptId of the InterruptFinal whose decisions this call carries out; null otherwise.",
    resolve: (e) => e.resumedInterruptId ?? null,
  }),
}));
const ToolResultStepRef = member(
  "ToolResultStep",
  "tool_result_step",
  "The outcome of the call with the same callId.",
  (t) => ({
    tool: t.exposeString("tool", { description: "The tool called." }),
    callId: t.exposeString("callId", { description: "The callId of its ToolCallStep." }),
    result: t.field({
      type: "JSON",
      nullable: true,
      description:
        "The tool's result value, untouched: its data, the string it returned, or its content blocks; the error ({ kind, message, issues }) when isError.",
      resolve: (e) => e.result,
    }),
    details: t.field({
      type: "JSON",
      nullable: true,
      description: "The tool's details: facts for a UI the model never reads; null when it declared none.",
      resolve: (e) => e.details ?? null,
    }),
    isError: t.exposeBoolean("isError", { description: "True when the call failed (the model sees the error)." }),
  }),
);
const ToolProgressStepRef = member(
  "ToolProgressStep",
  "tool_progress_step",
  "A partial update from the call with the same callId while it runs (the tool's ctx.onUpdate).",
  (t) => ({
    tool: t.exposeString("tool", { description: "The tool called." }),
    callId: t.exposeString("callId", { description: "The callId of its ToolCallStep." }),
    toolRunId: t.exposeID("toolRunId", {
      description: "The tool run reporting (runEvents carries the same update as RUN_PROGRESS).",
    }),
    message: t.string({ nullable: true, description: "What the tool is doing, in words.", resolve: (e) => e.message }),
    progress: t.float({
      nullable: true,
      description: "How far along; out of total when it is given.",
      resolve: (e) => e.progress,
    }),
    total: t.float({
      nullable: true,
      description: "What progress counts towards, when known.",
      resolve: (e) => e.total,
    }),
    details: t.field({
      type: "JSON",
      nullable: true,
      description: "Structured facts for a UI.",
      resolve: (e) => e.details ?? null,
    }),
  }),
);
const InterruptFinalRef = member(
  "InterruptFinal",
  "interrupt_final",
  "The run waits for an approval decision; resume with { threadId, resume }. Terminal.",
  (t) => ({
    interruptId: t.exposeString("interruptId", { description: "The pause to resume; resumeCheckpointId guards it." }),
    payload: t.field({
      type: "JSON",
      nullable: true,
      description: "The pending calls and the decisions each allows.",
      resolve: (e) => e.payload,
    }),
    reason: t.string({ nullable: true, description: "Why the run paused.", resolve: (e) => e.reason }),
    threadId: t.string({
      description: "The thread to resume on.",
      // Events stored before the runner recorded it name their run's thread through the run.
      resolve: async (e, _args, ctx) => e.threadId ?? (await ctx.runtime.agents.store.get(e.runId))?.threadId ?? "",
    }),
  }),
);
const SuspendedFinalRef = member(
  "SuspendedFinal",
  "suspended_final",
  "A tool parked on interactions; answer them, then resume. Terminal.",
  (t) => ({
    interactionIds: t.stringList({
      description: "The interactions the parked tool waits on.",
      resolve: (e) => e.interactionIds,
    }),
    threadId: t.exposeString("threadId", { description: "The thread to resume on." }),
    callerInteractionIds: t.stringList({
      description: "Those of interactionIds the caller answers (to: caller).",
      resolve: (e) => e.callerInteractionIds,
    }),
    expiryAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the first of them expires; null: never.",
      resolve: (e) => e.expiryAt,
    }),
  }),
);
const AsksFinalRef = member(
  "AsksFinal",
  "asks_final",
  "The agent asked its caller; answer the asks (answerInteraction) or resume with the answers. Terminal.",
  (t) => ({
    asks: t.field({
      type: ["JSONObject"],
      description:
        "The full parked entries the caller must answer: { id (an interaction id), callId, question, answerFormat, to, expiryAt, status }. Answer each with answerInteraction (the run then continues by itself) or resume with the answers.",
      resolve: (e) => e.asks,
    }),
  }),
);

/**
 * The one list of the union's members, keyed by the event's `type`, in the schema's order: the union's
 * members and its `__typename` table (resolveType) both derive from it, and the key type makes it name
 * every member of AgentEventRecord, each with its own object type.
 */
const MEMBERS: { [K in AgentEventRecord["type"]]: ReturnType<typeof member<K>> } = {
  message_delta: MessageDeltaRef,
  intermediate_delta: IntermediateDeltaRef,
  message_final: MessageFinalRef,
  reasoning_step: ReasoningStepRef,
  run_usage: RunUsageRef,
  structured_final: StructuredFinalRef,
  tool_call_step: ToolCallStepRef,
  tool_result_step: ToolResultStepRef,
  tool_progress_step: ToolProgressStepRef,
  interrupt_final: InterruptFinalRef,
  suspended_final: SuspendedFinalRef,
  asks_final: AsksFinalRef,
};

export const StreamEventRef = builder.unionType("StreamEvent", {
  description: "Every event an agent run streams (docs/agent-stream.md).",
  types: Object.values(MEMBERS),
  resolveType: (e) => MEMBERS[(e as AgentEventRecord).type].name,
});
