import { GraphQLError } from "graphql";
import type { Caller } from "../auth/roles.ts";
import type { AgentRunOptions } from "../agent/agent.ts";
import { AgentRunFailedError } from "../agent/agent-errors.ts";
import type { StartRequest } from "../agent/agent-service.ts";
import type { AgentEventRecord, AgentLogEntry } from "../agent/events.ts";
import { SubscriberOverflowError } from "../events/bus.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { resumableStream } from "./resumable-stream.ts";
import { closeWith } from "./stream.ts";

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

export const StreamEventRef = builder.unionType("StreamEvent", {
  description: "Every event an agent run streams (docs/agent-stream.md).",
  types: [
    MessageDeltaRef,
    IntermediateDeltaRef,
    MessageFinalRef,
    ReasoningStepRef,
    RunUsageRef,
    StructuredFinalRef,
    ToolCallStepRef,
    ToolResultStepRef,
    ToolProgressStepRef,
    InterruptFinalRef,
    SuspendedFinalRef,
    AsksFinalRef,
  ],
  resolveType: (e) => TYPENAMES[(e as AgentEventRecord).type],
});

const TYPENAMES: Record<AgentEventRecord["type"], string> = {
  message_delta: "MessageDelta",
  intermediate_delta: "IntermediateDelta",
  message_final: "MessageFinal",
  reasoning_step: "ReasoningStep",
  run_usage: "RunUsage",
  structured_final: "StructuredFinal",
  tool_call_step: "ToolCallStep",
  tool_result_step: "ToolResultStep",
  tool_progress_step: "ToolProgressStep",
  interrupt_final: "InterruptFinal",
  suspended_final: "SuspendedFinal",
  asks_final: "AsksFinal",
};

const PresetSpecInput = builder.inputType("PresetSpecInput", {
  description: "A preset that exists for one agent run only (no !ENV markers).",
  fields: (t) => ({
    name: t.string({ required: true, description: "The name the agent calls it by." }),
    description: t.string({ required: true, description: "What the model reads." }),
    baseTool: t.string({ required: true, description: "A registered tool, branch or preset (curated ones included)." }),
    fixedKwargs: t.field({ type: "JSONObject", required: true, description: "Baked inputs." }),
  }),
});

/** JSON as Pothos infers a JSONObject input field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the type Pothos itself infers for the field
type JsonObjectInput = Record<string, any>;

/** SubAgentSpecInput as the door receives it; the tools agent's ToolInput validates it (agent/specs.ts). */
interface SubAgentSpecShape {
  name: string;
  description: string;
  systemPrompt?: string | null;
  toolNames?: string[] | null;
  presets?: { name: string; description: string; baseTool: string; fixedKwargs: JsonObjectInput }[] | null;
  responseFormat?: JsonObjectInput | null;
  responseFormatId?: string | null;
  skills?: string[] | null;
  inlineSkills?: JsonObjectInput[] | null;
  strategy?: string | null;
  subagents?: SubAgentSpecShape[] | null;
  interruptOn?: JsonObjectInput | null;
  askCaller?: boolean | null;
  recursionLimit?: number | null;
  llmProvider?: string | null;
  llmKwargs?: JsonObjectInput | null;
}

const SubAgentSpecInput = builder.inputRef<SubAgentSpecShape>("SubAgentSpecInput").implement({
  description:
    "A sub-agent the run's agent may call as a tool: the full JSON shape (DeepSubAgentSpec, docs/agent-stream.md §9). Sub-agents nest.",
  fields: (t) => ({
    name: t.string({ required: true, description: "The tool name the parent calls it by." }),
    description: t.string({ required: true, description: "What the parent model reads." }),
    systemPrompt: t.string({ description: "Its system message; {{name}} is replaced from the run's variables." }),
    toolNames: t.stringList({ description: "The surface names it may call." }),
    presets: t.field({ type: [PresetSpecInput], description: "Presets for it alone." }),
    responseFormat: t.field({ type: "JSONObject", description: "A JSON Schema its answer must match." }),
    responseFormatId: t.string({
      description:
        "A stored response format (responseFormats) its answer must match, rendered with the run's variables; not with responseFormat.",
    }),
    skills: t.stringList({ description: "Stored skills it loads by name." }),
    inlineSkills: t.field({
      type: ["JSONObject"],
      description:
        "Skills given inline: { name, content, description? } — content is the skill's text (its instructions), added to the system message.",
    }),
    strategy: t.string({
      description:
        "The loop strategy it runs with; default: the tools-agent loop (default). An unknown name is refused.",
    }),
    subagents: t.field({
      type: [SubAgentSpecInput],
      description: "Its own sub-agents, tools of it (at most 4 levels deep).",
    }),
    interruptOn: t.field({
      type: "JSONObject",
      description:
        "Its tools that need an approval decision: tool → true | { allowedDecisions, description }. The interrupt pauses the parent run.",
    }),
    askCaller: t.boolean({
      description: "Offer it the built-in ask_caller tool; its asks pause the parent run. Default false.",
    }),
    recursionLimit: t.int({ description: "The most model calls of one of its calls. Default: the parent's." }),
    llmProvider: t.string({ description: "Its provider; default: the parent's." }),
    llmKwargs: t.field({
      type: "JSONObject",
      description: "Its provider options (model, temperature, ...); default: the parent's model.",
    }),
  }),
});

const AgentRunInput = builder.inputType("AgentRunInput", {
  description: "A run of an agent; with threadId + resume, the resume of the thread's paused run.",
  fields: (t) => ({
    agent: t.string({ description: "Default: the built-in tools agent (tools_agent)." }),
    toolNames: t.stringList({
      description: "The registered names the agent may call (tools curated off the API included; tiers still apply).",
    }),
    presets: t.field({ type: [PresetSpecInput], description: "Presets for this run alone." }),
    subagents: t.field({ type: [SubAgentSpecInput], description: "Sub-agents it may call as tools." }),
    systemMessage: t.string({ description: "Templated: {{name}} is replaced from variables." }),
    userMessage: t.string({ description: "Templated: {{name}} is replaced from variables." }),
    variables: t.field({ type: "JSONObject", description: "Values of the {{name}} placeholders." }),
    responseFormat: t.field({
      type: "JSONObject",
      description: "A JSON Schema the final answer must match (→ StructuredFinal).",
    }),
    interruptOn: t.field({
      type: "JSONObject",
      description: "Tool → true | { allowedDecisions, description }: approval gates (→ InterruptFinal).",
    }),
    skills: t.stringList({ description: "Stored skills to load by name." }),
    inlineSkills: t.field({
      type: ["JSONObject"],
      description:
        "Skills given inline: { name, content, description? } — content is the skill's text (its instructions), added to the system message.",
    }),
    recursionLimit: t.int({ description: "The most model turns before the run fails." }),
    threadId: t.string({ description: "Continue (or start) this thread; its history is read first." }),
    resume: t.field({
      type: "JSON",
      description: "Decisions ({ decisions: [...] }) or answers ({ answers: { id: answer } }) for the paused run.",
    }),
    resumeCheckpointId: t.string({
      description:
        "With resume: the paused run's id, a guard against resuming another pause. Without resume: a failed or cancelled run of the thread to fork past; a new run continues from its checkpoint.",
    }),
    llmProvider: t.string({ description: "The provider to use; default: the configured one." }),
    llmKwargs: t.field({ type: "JSONObject", description: "Provider options (model, temperature, ...)." }),
    strategy: t.string({
      description: 'The loop strategy, by registered name (default "tools"); an unknown name lists the known ones.',
    }),
    checkpointProvider: t.string({
      description: 'Where the thread memory is kept, by registered name (default "database").',
    }),
    storeProvider: t.string({
      description: 'Where the agent\'s long-term store is kept, by registered name (default "database").',
    }),
    extra: t.field({
      type: "JSONObject",
      description:
        "Role-specific agent params (the agent's extrasKeys), merged into the run options; any other key is refused.",
    }),
  }),
});

type AgentRunInputShape = typeof AgentRunInput.$inferInput;

/** The door's input as the domain takes it: `extra` first, declared fields over it. */
function toStart(input: AgentRunInputShape, caller: Caller): StartRequest {
  const { agent, extra, ...declared } = input;
  return {
    agent,
    caller,
    options: {
      ...(extra ?? {}),
      ...Object.fromEntries(Object.entries(declared).filter(([, v]) => v !== null && v !== undefined)),
    } as AgentRunOptions,
  };
}

const AgentRunResultRef = builder
  .objectRef<{ runId: string; threadId: string | null; final: AgentEventRecord }>("AgentRunResult")
  .implement({
    description: "The end of an agent run that runAgent drained.",
    fields: (t) => ({
      runId: t.exposeID("runId", { description: "The agent run." }),
      threadId: t.string({
        nullable: true,
        description: "Its thread, when it ran on one.",
        resolve: (r) => r.threadId,
      }),
      final: t.field({ type: StreamEventRef, description: "Its terminal event.", resolve: (r) => r.final }),
    }),
  });

const AgentInfoRef = builder
  .objectRef<{
    name: string;
    description: string;
    inputSchema: Record<string, unknown>;
    specRunnable: boolean;
    presetBakeableFields: string[];
  }>("AgentInfo")
  .implement({
    description: "A registered agent.",
    fields: (t) => ({
      name: t.exposeString("name", { description: "Its tool name (AgentRunInput.agent)." }),
      description: t.exposeString("description", { description: "What it does." }),
      inputSchema: t.field({
        type: "JSONObject",
        description: "The JSON Schema of its tool input.",
        resolve: (a) => a.inputSchema,
      }),
      specRunnable: t.exposeBoolean("specRunnable", {
        description: "It runs from a spec (toolNames, presets, subagents); every field is preset-bakeable.",
      }),
      presetBakeableFields: t.exposeStringList("presetBakeableFields", {
        description: "The input fields a preset may bake.",
      }),
    }),
  });

builder.queryFields((t) => ({
  agents: t.field({
    type: [AgentInfoRef],
    description: "Every registered agent.",
    resolve: (_r, _a, ctx) => {
      requireCaller(ctx);
      return ctx.runtime.agents.list();
    },
  }),
}));

builder.mutationFields((t) => ({
  runAgent: t.field({
    type: AgentRunResultRef,
    description:
      "Runs (or resumes) an agent to its end and returns its terminal event. A failed run is an AGENT_RUN_FAILED error.",
    args: { input: t.arg({ type: AgentRunInput, required: true, description: "The run (or resume)." }) },
    resolve: async (_r, { input }, ctx) => {
      const caller = requireCaller(ctx);
      try {
        const done = await ctx.runtime.agents.run(toStart(input, caller), ctx.signal);
        return { runId: done.runId, threadId: done.threadId, final: done.final };
      } catch (e) {
        if (e instanceof AgentRunFailedError) throw runFailed(e.runId, e.kind, e.message, e.afterSeq);
        throw e;
      }
    },
  }),
}));

builder.subscriptionFields((t) => ({
  agentStream: t.field({
    type: StreamEventRef,
    description:
      "Starts a run and streams its events; with runId, joins that run: events after afterSeq are replayed, then live ones follow until the terminal.",
    args: {
      input: t.arg({
        type: AgentRunInput,
        required: true,
        description: "The run to start; ignored when runId joins a run.",
      }),
      afterSeq: t.arg.int({ description: "With runId: replay the events after this seq first (0: all)." }),
      runId: t.arg.id({
        description: "Join this run instead of starting one; NOT_FOUND when the caller may not see it.",
      }),
    },
    subscribe: async (_r, args, ctx) => {
      const caller = requireCaller(ctx);
      const agents = ctx.runtime.agents;
      const started = args.runId ? null : await agents.start(toStart(args.input, caller));
      const runId = started ? started.runId : (await agents.open(String(args.runId), caller)).id;
      // A resume that joins a continued run starts after its SuspendedFinal.
      const after = started ? (started.afterSeq ?? 0) : Math.max(0, args.afterSeq ?? 0);
      return closeWith(ctx, (signal) =>
        resumableStream(agents.events(runId, after, signal), {
          afterSeq: after,
          seq: (e) => e.seq,
          resumeWith: "runId and afterSeq",
          resumable: (e) => e instanceof SubscriberOverflowError,
          map: toEvent,
        }),
      );
    },
    resolve: (e: AgentEventRecord) => e,
  }),
}));

/** An agent log entry as the stream serves it: a failure ends the stream with AGENT_RUN_FAILED. */
function toEvent(e: AgentLogEntry, last: number | null): AgentEventRecord {
  if (e.type === "run_failed") throw runFailed(e.runId, e.kind, e.message, last ?? 0);
  return e;
}

function runFailed(runId: string, kind: string, message: string, afterSeq: number): GraphQLError {
  return new GraphQLError(`the agent run failed (${kind}): ${message}`, {
    extensions: { code: "AGENT_RUN_FAILED", kind, runId, afterSeq },
  });
}
