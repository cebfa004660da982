import { ToolError } from "../errors.ts";
import { SecretScope } from "../secrets/secrets.ts";
import type { AgentClass, AgentRunOptions } from "./agent.ts";

/**
 * The run options of an agent called as a tool: its own `fromToolInput` mapping of the
 * validated input. A mapping that throws fails the call as INVALID_INPUT with its message
 * scrubbed of every input value (4 characters or more): the input may be a preset's baked
 * credentials, which the caller is not entitled to see (docs/seed-conformance.md, 002-14 `from_tool_input`).
 */
export function optionsFromToolInput(cls: AgentClass, input: Record<string, unknown>): AgentRunOptions {
  let mapped: unknown;
  try {
    mapped = cls.fromToolInput(input);
  } catch (e) {
    const values = new SecretScope();
    values.learn(input);
    const message = values.scrubText(e instanceof Error ? e.message : String(e));
    throw new ToolError(`agent "${cls.toolName}" refused its tool input: ${message}`, {
      kind: "INVALID_INPUT",
      retryable: false,
    });
  }
  if (!mapped || typeof mapped !== "object" || Array.isArray(mapped))
    throw new ToolError(`agent "${cls.toolName}": fromToolInput must return an options object`, {
      kind: "INTERNAL",
      retryable: false,
    });
  return mapped as AgentRunOptions;
}
