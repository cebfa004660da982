import { ApiError, describeIssues, type Issue } from "../../errors.ts";
import type { ToolDefinition } from "../../tools/definition.ts";
import type { AgentRunOptions } from "../agent.ts";
import { isToolDefinition } from "../run-options.ts";
import type { SubAgentSpec } from "../specs.ts";

/**
 * Sub-agent live tools (docs/agent-stream.md §9.3): `defineTool` definitions an in-process
 * caller gives a sub-agent spec, at any depth. They run through the dispatch chokepoint
 * like a run's live tools (tools-agent/live-tools.ts); this module keeps them out of the
 * options that are validated and stored.
 */
const LIVE = Symbol("tai42.liveTools");

/** The live tools of a spec: taken by {@link takeLiveTools}, or given directly. */
export function liveToolsOf(spec: SubAgentSpec): ToolDefinition[] {
  return (spec as { [LIVE]?: ToolDefinition[] })[LIVE] ?? spec.tools ?? [];
}

/**
 * Separates the live tools of every sub-agent (at any depth) from the JSON options, which
 * are validated and stored; `attach` puts them back on the parsed options under a symbol
 * key, so they reach the agent but never a stored row. Anything that is not a `defineTool`
 * definition is BAD_USER_INPUT at its path.
 */
export function takeLiveTools(options: AgentRunOptions): {
  options: AgentRunOptions;
  attach(parsed: AgentRunOptions): AgentRunOptions;
} {
  const found = new Map<string, ToolDefinition[]>();
  const issues: Issue[] = [];
  const strip = (specs: unknown, at: string, key: string): unknown => {
    if (!Array.isArray(specs)) return specs;
    return specs.map((s: unknown, i) => {
      if (!s || typeof s !== "object" || Array.isArray(s)) return s;
      const { tools, subagents, ...rest } = s as SubAgentSpec & Record<string, unknown>;
      const path = `${at}/${i}`;
      if (tools !== undefined) {
        if (!Array.isArray(tools))
          issues.push({
            path: `${path}/tools`,
            message: "must be a list of live tool definitions (defineTool), given in process",
          });
        else {
          tools.forEach((t: unknown, j) => {
            if (!isToolDefinition(t))
              issues.push({
                path: `${path}/tools/${j}`,
                message: "must be a live tool definition (defineTool); live tools are given in process, never as JSON",
              });
          });
          found.set(`${key}${i}`, tools);
        }
      }
      return subagents === undefined
        ? rest
        : { ...rest, subagents: strip(subagents, `${path}/subagents`, `${key}${i}/`) };
    });
  };
  const stripped =
    options.subagents === undefined
      ? options
      : { ...options, subagents: strip(options.subagents, "/subagents", "") as SubAgentSpec[] };
  if (issues.length) throw ApiError.badInput(`invalid live tools: ${describeIssues(issues)}`, issues);
  const put = (specs: SubAgentSpec[] | undefined, key: string): void =>
    specs?.forEach((s, i) => {
      const tools = found.get(`${key}${i}`);
      if (tools) Object.defineProperty(s, LIVE, { value: tools, enumerable: false });
      put(s.subagents, `${key}${i}/`);
    });
  return {
    options: stripped,
    attach(parsed) {
      if (found.size) put(parsed.subagents, "");
      return parsed;
    },
  };
}
