import { ApiError, type Issue } from "../../errors.ts";
import type { Surface } from "../../registry/surface.ts";
import { schemaProblems, type JsonSchema } from "../../tools/json-schema.ts";
import type { ProviderRegistry, ResolvedModel } from "../providers/registry.ts";
import type { SubAgentSpec } from "../specs.ts";
import { parseInterruptOn } from "../tools-agent/interrupts.ts";
import { composeSystem, renderTemplate, type PromptSkill } from "../tools-agent/prompt.ts";
import { askCallerSpec, duplicateIssues, presetSpecs, SUBAGENT_INPUT, surfaceSpecs } from "../tools-agent/toolbox.ts";
import { liveTools } from "../tools-agent/live-tools.ts";
import { liveToolsOf } from "./live-tools.ts";
import { checkStrategy, type StrategyLookup } from "./strategy.ts";
import type { ToolSpec } from "../tools-agent/loop-types.ts";

/** How deep sub-agents may nest: a run's sub-agent is level 1. */
export const MAX_SUBAGENT_DEPTH = 4;

/** What preparing sub-agents reads from the run being prepared. */
export interface SubagentPrepareEnv {
  surface: Surface;
  providers: ProviderRegistry;
  /** The `{{name}}` values of the run. */
  vars: Record<string, unknown>;
  /** The parent's provider and model: a sub-agent without its own uses them. */
  llm: ResolvedModel;
  llmProvider: string | undefined;
  recursionLimit: number;
  /** The runtime's loop strategies by name. */
  strategy: StrategyLookup;
  /** The schema a stored response format renders to with the run's variables; problems go to `issues`. */
  resolveResponseFormat(name: string, path: string, issues: Issue[]): Promise<JsonSchema | null>;
  loadSkills(
    names: string[],
    inline: { name: string; content: string }[],
    path: string,
    issues: Issue[],
  ): Promise<PromptSkill[]>;
}

/**
 * Resolves sub-agent specs into tools of their parent (docs/agent-stream.md §9), nested
 * ones included; every problem is pushed to `issues` with its path, so a start is refused
 * with all of them at once.
 */
export async function prepareSubagents(
  specs: SubAgentSpec[],
  env: SubagentPrepareEnv,
  at: string,
  parents: string[],
  issues: Issue[],
): Promise<ToolSpec[]> {
  const out: ToolSpec[] = [];
  if (specs.length && parents.length >= MAX_SUBAGENT_DEPTH) {
    issues.push({ path: at, message: `sub-agents nest at most ${MAX_SUBAGENT_DEPTH} levels deep` });
    return out;
  }
  for (const [i, s] of specs.entries()) {
    const path = `${at}/${i}`;
    const label = [...parents, s.name].join("/");
    const llm = s.llmProvider !== undefined || s.llmKwargs !== undefined ? resolveModel(env, s, path, issues) : env.llm;
    const live = liveTools(env.surface, liveToolsOf(s), issues, `${path}/tools`);
    const tools: ToolSpec[] = [
      ...surfaceSpecs(env.surface, s.toolNames ?? [], `${path}/toolNames`, issues),
      ...presetSpecs(env.surface, s.presets ?? [], `${path}/presets`, issues),
      ...live.specs,
    ];
    tools.push(
      ...(await prepareSubagents(
        s.subagents ?? [],
        { ...env, llm, llmProvider: s.llmProvider ?? env.llmProvider },
        `${path}/subagents`,
        [...parents, s.name],
        issues,
      )),
    );
    if (s.askCaller) tools.push(askCallerSpec());
    issues.push(...duplicateIssues(tools, `${path}/toolNames`));
    const gates = parseInterruptOn(s.interruptOn, new Set(tools.map((t) => t.name)));
    issues.push(...gates.issues.map((g) => ({ ...g, path: `${path}${g.path}` })));
    const strategy = checkStrategy(s.strategy, `${path}/strategy`, issues, env.strategy);
    const prompt = s.systemPrompt
      ? renderTemplate(s.systemPrompt, env.vars, `${path}/systemPrompt`)
      : { text: null, issues: [] };
    issues.push(...prompt.issues);
    const responseFormat = await responseFormatOf(s, env, path, issues);
    const skills = await env.loadSkills(s.skills ?? [], s.inlineSkills ?? [], `${path}/skills`, issues);
    out.push({
      kind: "subagent",
      name: s.name,
      description: s.description,
      inputSchema: SUBAGENT_INPUT,
      executionMode: "parallel",
      redacted: false,
      spec: s,
      label,
      tools,
      live: live.entries,
      system: composeSystem(prompt.text, skills, responseFormat, tools),
      responseFormat,
      gates: gates.gates,
      strategy,
      llm,
      recursionLimit: s.recursionLimit ?? env.recursionLimit,
    });
  }
  return out;
}

/**
 * A spec's answer format: inline, or named by stored id and rendered at the point of use (docs/agent-stream.md §9.4).
 */
async function responseFormatOf(
  s: SubAgentSpec,
  env: SubagentPrepareEnv,
  path: string,
  issues: Issue[],
): Promise<JsonSchema | null> {
  if (s.responseFormat && s.responseFormatId !== undefined) {
    issues.push({ path: `${path}/responseFormatId`, message: "give responseFormat or responseFormatId, not both" });
    return null;
  }
  if (s.responseFormatId !== undefined)
    return env.resolveResponseFormat(s.responseFormatId, `${path}/responseFormatId`, issues);
  const inline = (s.responseFormat as JsonSchema | undefined) ?? null;
  if (inline) issues.push(...schemaProblems(inline, `${path}/responseFormat`));
  return inline;
}

function resolveModel(env: SubagentPrepareEnv, s: SubAgentSpec, path: string, issues: Issue[]): ResolvedModel {
  try {
    return env.providers.resolve(s.llmProvider ?? env.llmProvider, s.llmKwargs);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    issues.push(
      ...(e.issues.length ? e.issues : [{ path: "/llmProvider", message: e.message }]).map((i) => ({
        ...i,
        path: `${path}${i.path}`,
      })),
    );
    return env.llm;
  }
}
