import { GraphQLError } from "graphql";
import type { Caller } from "../auth/roles.ts";
import type { AgentRunOptions } from "../agent/agent.ts";
import { AgentRunFailedError } from "../agent/agent-errors.ts";
import type { StartRequest } from "../agent/agent-service.ts";
import type { AgentEventRecord, AgentLogEntry } from "../agent/events.ts";
import { SubscriberOverflowError } from "../events/bus.ts";
import { StreamEventRef } from "./agent-events.ts";
import { builder } from "./builder.ts";
import { requireCaller } from "./context.ts";
import { resumableStream } from "./resumable-stream.ts";
import { closeWith } from "./stream.ts";

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
