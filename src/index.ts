/**
 * The public authoring API: `import { app, defineTool, ToolError, z } from "tai42"`.
 */
export { app, App, type ToolOptions } from "./app.ts";
export { defineTool, ToolDefinitionError, type DefineToolFields } from "./tools/define-tool.ts";
export { ToolError, ERROR_KINDS, DEFAULT_TRANSIENT_KINDS, type ErrorKind, type Issue } from "./errors.ts";
export { park, type Park, type InteractionRequest, type OpenedInteraction } from "./interactions/park.ts";
export { toolResult, type ToolResult, type ContentBlock } from "./tools/result.ts";
export { Agent, AgentInterruptedError, drain, type AgentClass, type AgentContext, type AgentRunOptions, type SuspendedReceipt } from "./agent/agent.ts";
export { agentSessionThread, getAgentSessionThread, setAgentSessionThread, resetAgentSessionThread, type AgentSessionThreadToken } from "./agent/session-thread.ts";
export { finalEventForValue, type StreamEvent } from "./agent/events.ts";
export type { ToolContext, ToolDefinition, ExecutionMode } from "./tools/definition.ts";
export type { Tier, Role, Caller } from "./auth/roles.ts";
export type { RetryPolicyInit } from "./retry/policy.ts";
export { z } from "zod";
