import type { ModelMessage } from "ai";
import { ApiError, describeIssues, type Issue } from "../../errors.ts";
import { schemaProblems, type JsonSchema } from "../../tools/json-schema.ts";
import {
  Agent,
  drain,
  type AgentContext,
  type AgentPrepareContext,
  type AgentRunOptions,
  type AgentThreadContext,
} from "../agent.ts";
import type { StreamEvent } from "../events.ts";
import type { ResolvedModel } from "../providers/registry.ts";
import type { ThreadMessageInput } from "../threads.ts";
import { closeDangling, forStorage } from "./history.ts";
import { parseInterruptOn, type GateConfig } from "./interrupts.ts";
import { composeSystem, renderTemplate, type PromptSkill } from "./prompt.ts";
import { inNewRun, planResume } from "./resume.ts";
import { progressOf } from "./continue-progress.ts";
import { RunSecrets } from "./run-secrets.ts";
import { ToolsAgentInput, type ToolsAgentOptions } from "./tool-input.ts";
import { askCallerSpec, duplicateIssues, presetSpecs, surfaceSpecs } from "./toolbox.ts";
import { prepareSubagents } from "../subagents/prepare.ts";
import { runSubagent } from "../subagents/run.ts";
import { UsageTotals } from "./usage.ts";
import { liveTools, withLiveTools } from "./live-tools.ts";
import type { CheckpointProvider } from "../storage/agent-storage.ts";
import type { SurfaceEntry } from "../../registry/surface-entry.ts";
import type { CallEnv, LoopIO, LoopStrategy, ResumedBatch, ToolSpec } from "./loop-types.ts";

/** Everything a tools-agent run needs, checked before the run exists. */
interface Plan {
  tools: ToolSpec[];
  system: string;
  userMessage: string | null;
  gates: Map<string, GateConfig>;
  responseFormat: JsonSchema | null;
  recursionLimit: number;
  llm: ResolvedModel;
  history: ModelMessage[];
  resume: ResumedBatch | null;
  strategy: LoopStrategy;
  checkpointer: CheckpointProvider;
  live: Map<string, SurfaceEntry>;
}

const DEFAULT_RECURSION_LIMIT = 25;

/**
 * The built-in tools agent (docs/agent-stream.md §5–§9): an LLM loop over the named
 * surface tools, inline presets and sub-agents, every call through the chokepoint as the
 * caller. Its ToolInput advertises exactly what it honours, so it is specRunnable.
 */
export class ToolsAgent extends Agent {
  static override toolName = "tools_agent";
  static override toolDescription =
    "Run an LLM agent over the named tools: it calls them (through the platform, with your permissions) until it can answer. Give it a userMessage and toolNames; optionally a systemMessage, presets, sub-agents, a responseFormat (JSON Schema) and approval gates (interruptOn).";
  static override ToolInput = ToolsAgentInput;
  static override specRunnable = true;

  override async prepare(options: AgentRunOptions, ctx: AgentPrepareContext): Promise<Plan> {
    const o = options as ToolsAgentOptions;
    const { surface, providers } = ctx.services;
    const issues: Issue[] = [];

    const live = liveTools(surface, options.tools ?? [], issues);
    const tools = [
      ...surfaceSpecs(surface, o.toolNames ?? [], "/toolNames", issues),
      ...presetSpecs(surface, o.presets ?? [], "/presets", issues),
      ...live.specs,
    ];
    const llm = providers.resolve(o.llmProvider, o.llmKwargs);
    const vars = templateVars(ctx, o);

    const recursionLimit = o.recursionLimit ?? DEFAULT_RECURSION_LIMIT;
    const subEnv = subagentEnv(ctx, o, vars, llm, recursionLimit);
    tools.push(...(await prepareSubagents(options.subagents ?? [], subEnv, "/subagents", [], issues)));
    if (o.askCaller !== false) tools.push(askCallerSpec());
    issues.push(...duplicateIssues(tools, "/toolNames"));

    const responseFormat = (o.responseFormat as JsonSchema | undefined) ?? null;
    if (responseFormat) issues.push(...schemaProblems(responseFormat, "/responseFormat"));
    const { gates, issues: gateIssues } = parseInterruptOn(o.interruptOn, new Set(tools.map((t) => t.name)));
    issues.push(...gateIssues);
    const { system, user } = renderMessages(o, vars, tools, issues);
    const promptSkills = await loadSkills(ctx, o.skills ?? [], o.inlineSkills ?? [], "/skills", issues);
    const { checkpointer, history } = await loadHistory(ctx, o, user.text, issues);
    if (issues.length) throw ApiError.badInput(`the agent run cannot start: ${describeIssues(issues)}`, issues);

    const resume = ctx.resuming
      ? await planResume(ctx.resuming, o.resume, tools, ctx.caller, ctx.services, issues)
      : null;
    if (issues.length) throw ApiError.badInput(`the resume is invalid: ${describeIssues(issues)}`, issues);
    return {
      tools,
      system: composeSystem(system.text, promptSkills, responseFormat, tools),
      userMessage: user.text,
      gates,
      responseFormat,
      recursionLimit,
      llm,
      history,
      resume,
      strategy: ctx.services.plugins.strategy(o.strategy),
      checkpointer,
      live: live.entries,
    };
  }

  override async *astream(_options: AgentRunOptions, ctx: AgentContext): AsyncGenerator<StreamEvent> {
    const plan = ctx.prepared as Plan;
    const secrets = new RunSecrets(ctx.secrets);
    const usage = new UsageTotals(plan.llm.model.modelId);
    const redacted = new Set(plan.tools.flatMap((t) => (t.redacted ? [t.name] : [])));
    const persist = (messages: ModelMessage[]) =>
      plan.checkpointer.append(
        ctx.threadId,
        messages.map((m) => forStorage(m, redacted, secrets)),
      );
    const history = closeDangling(plan.resume?.history ?? plan.history, Boolean(plan.resume));
    if (plan.userMessage !== null) {
      const m: ModelMessage = { role: "user", content: plan.userMessage };
      history.push(m);
      await persist([m]);
    }
    const env: CallEnv = withLiveTools(
      {
        runTool: (target, input, onProgress, toolCallId) =>
          ctx.runTool(target, input, {
            onProgress,
            storedInput: secrets.scrub(input),
            toolCallId,
            onRun: (toolRunId) => void (toolCallId && io.onToolRun?.(toolCallId, toolRunId)),
          }),
        cancelTool: (toolRunId) => ctx.cancelTool(toolRunId),
        secrets,
        runSubagent: (spec, task, emit, resume) => runSubagent(spec, task, emit, resume, io, secrets),
      },
      plan.live,
    );
    // A continuation of the same run (docs/agent-stream.md §7.1) numbers every agent's turns on from its checkpoint.
    const continuing = Boolean(ctx.resuming && ctx.resuming.id === ctx.runId);
    const turns = new Map<string, number>(continuing ? Object.entries(agentTurnsOf(ctx.resuming?.checkpoint)) : []);
    if (plan.resume?.usage) usage.restore(plan.resume.usage);
    const io: LoopIO = {
      signal: ctx.signal,
      turns,
      env,
      usage,
      threadId: ctx.threadId,
      interactions: ctx.services.interactions,
      persist,
      checkpoint: (c: object) => ctx.checkpoint(secrets.scrub({ ...c, agentTurns: Object.fromEntries(turns) })),
      progress: (p) =>
        ctx.progress?.(
          secrets.scrub({
            ...p,
            messages: p.messages.map((m) => forStorage(m, redacted, secrets).message),
            agentTurns: Object.fromEntries(turns),
            usage: usage.snapshot(),
          }),
        ),
    };
    const loop = plan.strategy(
      {
        agent: null,
        mode: "root",
        model: plan.llm.model,
        settings: plan.llm.settings,
        system: plan.system,
        tools: plan.tools,
        gates: plan.gates,
        responseFormat: plan.responseFormat,
        recursionLimit: plan.recursionLimit,
      },
      io,
      history,
      plan.resume && !continuing ? inNewRun(plan.resume) : plan.resume,
    );
    yield* secrets.scrubStream(loop, null);
  }

  override async run(options: AgentRunOptions, ctx: AgentContext): Promise<unknown> {
    return drain(this.astream(options, ctx));
  }

  override async appendThreadMessages(
    threadId: string,
    messages: ThreadMessageInput[],
    ctx: AgentThreadContext,
  ): Promise<void> {
    await ctx.services.threads.append(
      threadId,
      messages.map((m) => ({
        role: m.role,
        content: m.content,
        message: { role: m.role, content: m.content } as ModelMessage,
      })),
    );
  }
}

/** The variables the run's templates see: the thread, the time, the agent's name, then the caller's own. */
function templateVars(ctx: AgentPrepareContext, o: ToolsAgentOptions): Record<string, unknown> {
  return {
    threadId: ctx.threadId,
    now: new Date().toISOString(),
    date: new Date().toISOString().slice(0, 10),
    agent: ToolsAgent.toolName,
    ...o.variables,
  };
}

/** What the run's sub-agents are prepared with: its surface, providers, variables, model and limits. */
function subagentEnv(
  ctx: AgentPrepareContext,
  o: ToolsAgentOptions,
  vars: Record<string, unknown>,
  llm: ResolvedModel,
  recursionLimit: number,
) {
  const { surface, providers } = ctx.services;
  return {
    surface,
    providers,
    vars,
    llm,
    llmProvider: o.llmProvider,
    recursionLimit,
    strategy: (name: string | undefined) => ctx.services.plugins.strategy(name),
    resolveResponseFormat: (name: string, path: string, found: Issue[]) =>
      ctx.services.responseFormats.resolve(name, vars, path, found),
    loadSkills: (names: string[], inline: { name: string; content: string }[], path: string, found: Issue[]) =>
      loadSkills(ctx, names, inline, path, found),
  };
}

/** The system and user messages rendered from their templates (`tools` names the run's tools); issues join `issues`. */
function renderMessages(o: ToolsAgentOptions, vars: Record<string, unknown>, tools: ToolSpec[], issues: Issue[]) {
  vars.tools = tools.map((t) => t.name).join(", ");
  const system =
    o.systemMessage !== undefined
      ? renderTemplate(o.systemMessage, vars, "/systemMessage")
      : { text: null, issues: [] };
  const user =
    o.userMessage !== undefined ? renderTemplate(o.userMessage, vars, "/userMessage") : { text: null, issues: [] };
  issues.push(...system.issues, ...user.issues);
  return { system, user };
}

/**
 * The thread's history and the checkpointer that stores it; a fresh run with no user message needs the thread to end
 * with one.
 */
async function loadHistory(
  ctx: AgentPrepareContext,
  o: ToolsAgentOptions,
  userMessage: string | null,
  issues: Issue[],
): Promise<{ checkpointer: CheckpointProvider; history: ModelMessage[] }> {
  // Admission checked the names (run-options.ts). A fork reads the stored thread up to its checkpoint.
  const checkpointer = ctx.services.plugins.checkpointer(o.checkpointProvider);
  const history = ctx.forking
    ? await ctx.services.threads.history(ctx.threadId, ctx.forking.mark)
    : await checkpointer.history(ctx.threadId);
  if (!ctx.resuming && userMessage === null && history.at(-1)?.role !== "user")
    issues.push({
      path: "/userMessage",
      message: "is required: the thread has no user message waiting for an answer",
    });
  return { checkpointer, history };
}

/**
 * The turns each agent of a paused run had numbered (its checkpoint's `agentTurns`); empty for a checkpoint stored
 * without them.
 */
function agentTurnsOf(checkpoint: unknown): Record<string, number> {
  const t = progressOf(checkpoint)?.agentTurns ?? (checkpoint as { agentTurns?: unknown } | null)?.agentTurns;
  if (!t || typeof t !== "object" || Array.isArray(t)) return {};
  return Object.fromEntries(Object.entries(t).filter((e): e is [string, number] => typeof e[1] === "number"));
}

/** Stored skills by name, then inline ones; unknown names become issues. */
async function loadSkills(
  ctx: AgentPrepareContext,
  names: string[],
  inline: { name: string; content: string }[],
  path: string,
  issues: Issue[],
): Promise<PromptSkill[]> {
  let stored: PromptSkill[] = [];
  try {
    stored = (await ctx.services.skills.resolve(names, path)).map((s) => ({
      name: s.name,
      instructions: s.instructions,
    }));
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    issues.push(...e.issues);
  }
  return [...stored, ...inline.map((s) => ({ name: s.name, instructions: s.content }))];
}
