/**
 * The public authoring API: `import { app, defineTool, ToolError, z } from "tai42"`.
 */
export { app, App, type ToolOptions } from "./app.ts";
import { DefinitionError } from "./definition-error.ts";

export { defineTool, type DefineToolFields } from "./tools/define-tool.ts";
export { DefinitionError, type DefinitionErrorOptions } from "./definition-error.ts";
/**
 * @deprecated Another name of `DefinitionError` (docs/api-changes.md §12): test
 * `instanceof DefinitionError` and `rule.startsWith("tool.")`.
 */
export const ToolDefinitionError = DefinitionError;
/** @deprecated Another name of `DefinitionError`. */
export type ToolDefinitionError = DefinitionError;
/**
 * @deprecated Another name of `DefinitionError` (docs/api-changes.md §12): test
 * `instanceof DefinitionError` and `rule.startsWith("plugin.")`.
 */
export const PluginDefinitionError = DefinitionError;
/** @deprecated Another name of `DefinitionError`. */
export type PluginDefinitionError = DefinitionError;
export { ToolError, ERROR_KINDS, DEFAULT_TRANSIENT_KINDS, type ErrorKind, type Issue } from "./errors.ts";
export { park, type Park, type InteractionRequest, type OpenedInteraction } from "./interactions/park.ts";
export { toolResult, type ToolResult, type ToolResultInit, type ContentBlock } from "./tools/result.ts";
export {
  Agent,
  AgentInterruptedError,
  drain,
  type AgentClass,
  type AgentContext,
  type AgentRunOptions,
  type SuspendedReceipt,
} from "./agent/agent.ts";
export {
  agentSessionThread,
  getAgentSessionThread,
  setAgentSessionThread,
  resetAgentSessionThread,
  type AgentSessionThreadToken,
} from "./agent/session-thread.ts";
export {
  finalEventForValue,
  type StreamEvent,
  type StreamEventType,
  type MessageDelta,
  type IntermediateDelta,
  type MessageFinal,
  type ReasoningStep,
  type RunUsage,
  type StructuredFinal,
  type ToolCallStep,
  type ToolResultStep,
  type ToolProgressStep,
  type InterruptFinal,
  type SuspendedFinal,
  type AsksFinal,
} from "./agent/events.ts";
export type { PresetSpec, SubAgentSpec, InlineSkill } from "./agent/specs.ts";
export { scriptedModel, type ScriptedModelInit, type ScriptTurns } from "./agent/providers/user-scripted-model.ts";
export type { ScriptTurn, ScriptToolCall } from "./agent/providers/script.ts";
export type { Conversation, SeenToolResult } from "./agent/providers/conversation.ts";
export type { LlmProviderModel, LlmProviderOptions } from "./agent/providers/registered-provider.ts";
export { EXTENSION_KINDS, type ExtensionKind, type ExtensionOptions, type BranchTool } from "./extensions/extension.ts";
export { DEFAULT_STRATEGY } from "./agent/strategies/strategy.ts";
export type { LoopConfig, LoopIO, LoopStrategy, ResumedBatch } from "./agent/tools-agent/loop-types.ts";
export { runLoop } from "./agent/tools-agent/loop.ts";
export type { AgentPlugin as Plugin } from "./agent/agent-plugin.ts";
export type {
  ConnectorKind,
  ConnectorConnection,
  ConnectorEnv,
  ConnectorHealth,
  ConnectorState,
  UpstreamTool,
  UpstreamListing,
  UpstreamCall,
  RefusedTool,
} from "./connectors/connector-kind.ts";
export { NETWORK_SETTINGS, type NetworkSettings } from "./connectors/network-settings.ts";
export {
  envConfigProvider,
  fileConfigProvider,
  ConfigFileError,
  type ConfigProvider,
  type FileConfigOptions,
} from "./plugins/config-provider.ts";
export {
  memoryCheckpointProvider,
  memoryStoreProvider,
  type CheckpointProvider,
  type StoreProvider,
} from "./agent/storage/agent-storage.ts";
export type { ToolContext, ToolDefinition, ExecutionMode } from "./tools/definition.ts";
export type { ToolUpdate, RunProgress } from "./tools/tool-update.ts";
export type { Tier, Role, Caller } from "./auth/roles.ts";
export { DEFAULT_BACKOFF, type RetryPolicyInit, type RetryPolicy, type RetryBackoff } from "./retry/policy.ts";
export { defineConfig, type ProjectConfig } from "./project-config.ts";
export { z } from "zod";
