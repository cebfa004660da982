import { ApiError, KIND_OF_API_CODE, ToolError } from "../errors.ts";
import type { ToolContext } from "../tools/definition.ts";
import { toolResult } from "../tools/result.ts";
import { valueOfTerminal, type AgentClass } from "./agent.ts";
import { AgentRunFailedError } from "./agent-errors.ts";
import { optionsFromToolInput } from "./tool-input-mapping.ts";
import type { AgentHost as AgentService, StartedRun } from "./agent-host.ts";

/**
 * An agent dispatched as a tool (its surface entry, `agent/agent-entry.ts`): start, drain, map
 * the end to a tool outcome. A refused start, a failed run and an approval interrupt are
 * ToolErrors (never retried); aborting the attempt cancels the run.
 */
export async function invokeAsTool(
  agents: Pick<AgentService, "start" | "awaitEnd" | "cancel">,
  cls: AgentClass,
  input: Record<string, unknown>,
  ctx: ToolContext,
): Promise<unknown> {
  const options = optionsFromToolInput(cls, input);
  let started: StartedRun;
  try {
    // The body gets the real input, and so does the agent's model; what the run stores and streams is scrubbed of what
    // the calling run learned (its scope is under this tool run's: docs/security-model.md §2).
    started = await agents.start({ agent: cls.toolName, options, caller: ctx.caller, secrets: ctx.childSecrets?.() });
  } catch (e) {
    if (e instanceof ApiError) throw new ToolError(e.message, { kind: KIND_OF_API_CODE[e.code], retryable: false });
    throw e;
  }
  const onAbort = () => agents.cancel(started.runId);
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const { final } = await agents.awaitEnd(started);
    if (final.type === "interrupt_final")
      throw new ToolError(
        `agent run ${started.runId} on thread ${started.threadId} stopped at an approval interrupt (${final.reason ?? final.interruptId}); resume it with agentStream or runAgent({ threadId, resume })`,
        { kind: "CONFLICT", retryable: false },
      );
    const value = valueOfTerminal(final);
    const details = { agentRunId: started.runId, threadId: started.threadId };
    return toolResult({ data: value === undefined ? null : value, details });
  } catch (e) {
    if (e instanceof AgentRunFailedError)
      throw new ToolError(`agent run ${e.runId} failed: ${e.message}`, { kind: e.kind, retryable: false });
    throw e;
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
}
