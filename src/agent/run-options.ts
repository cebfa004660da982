import { ApiError, describeIssues, type Issue } from "../errors.ts";
import { UnknownNameError } from "../plugins/plugin-catalog.ts";
import type { ToolDefinition } from "../tools/definition.ts";
import type { AgentClass, AgentRunOptions } from "./agent.ts";
import type { AgentPluginCatalog } from "./agent-plugin.ts";

/**
 * The run options every agent takes (the seed's `run` keyword arguments, camelCase, with
 * `variables`). Any other key is an extra: accepted only when the agent's ToolInput or its
 * `extrasKeys` names it (docs/run-options.md §1).
 */
export const RUN_OPTION_KEYS: readonly string[] = [
  "tools",
  "toolNames",
  "presets",
  "subagents",
  "systemMessage",
  "userMessage",
  "variables",
  "responseFormat",
  "strategy",
  "interruptOn",
  "skills",
  "inlineSkills",
  "recursionLimit",
  "threadId",
  "resume",
  "resumeCheckpointId",
  "llmProvider",
  "checkpointProvider",
  "storeProvider",
  "llmKwargs",
];

/**
 * Checks a start's options against its agent, before anything is stored: every key is a
 * run option, a ToolInput field or a declared extra; `strategy`, `checkpointProvider` and
 * `storeProvider` name registered ones; `tools` holds live tool definitions. Throws
 * BAD_USER_INPUT naming each problem.
 */
export function checkRunOptions(cls: AgentClass, options: AgentRunOptions, plugins: AgentPluginCatalog): void {
  const issues: Issue[] = [];
  const fields = new Set([...RUN_OPTION_KEYS, ...Object.keys(cls.ToolInput.shape), ...cls.extrasKeys]);
  const refused = Object.keys(options).filter((k) => !fields.has(k));
  for (const k of refused) issues.push({ path: `/${k}`, message: `is not an option of agent "${cls.toolName}"` });
  const named: Array<[UnknownNameError["option"], (name: string) => unknown]> = [
    ["strategy", (n) => plugins.strategy(n)],
    ["checkpointProvider", (n) => plugins.checkpointer(n)],
    ["storeProvider", (n) => plugins.store(n)],
  ];
  for (const [option, find] of named) {
    const value = options[option];
    if (value === undefined) continue;
    if (typeof value !== "string") {
      issues.push({ path: `/${option}`, message: "must be a name (a string)" });
      continue;
    }
    try {
      find(value);
    } catch (e) {
      if (!(e instanceof UnknownNameError)) throw e;
      issues.push({ path: `/${option}`, message: `no ${option} named "${value}" (known: ${e.known.join(", ")})` });
    }
  }
  issues.push(...liveToolIssues(options.tools));
  if (!issues.length) return;
  const extras = cls.extrasKeys.length ? `; its extra keys are ${cls.extrasKeys.join(", ")}` : "";
  const lead = refused.length
    ? `agent "${cls.toolName}" does not accept ${refused.map((k) => `"${k}"`).join(", ")}${extras}. `
    : "";
  throw ApiError.badInput(`${lead}invalid options for agent "${cls.toolName}": ${describeIssues(issues)}`, issues);
}

/** True for what `defineTool` returned (frozen, with an execute function). */
export function isToolDefinition(value: unknown): value is ToolDefinition {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.isFrozen(value) &&
    typeof (value as ToolDefinition).execute === "function" &&
    typeof (value as ToolDefinition).name === "string"
  );
}

function liveToolIssues(tools: unknown): Issue[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools))
    return [{ path: "/tools", message: "must be a list of live tool definitions (defineTool), given in process" }];
  return tools.flatMap((t, i) =>
    isToolDefinition(t)
      ? []
      : [
          {
            path: `/tools/${i}`,
            message: "must be a live tool definition (defineTool); live tools are given in process, never as JSON",
          },
        ],
  );
}

/** The options as a run stores them: without the live tools, which exist only in this process. */
export function storableOptions(options: AgentRunOptions): AgentRunOptions {
  if (options.tools === undefined) return options;
  const { tools: _live, ...rest } = options;
  void _live;
  return rest;
}
