import { z } from "zod";
import type { Tier } from "./auth/roles.ts";
import type { LimitsInit } from "./limits/limits.ts";
import { resolvePolicy, type RetryPolicy, type RetryPolicyInit } from "./retry/policy.ts";
import { DefinitionError } from "./definition-error.ts";
import { reportedZodIssues } from "./validation/declaration.ts";
import { defineTool, toolDefinitionError } from "./tools/define-tool.ts";
import type { ExecutionMode, ToolContext, ToolDefinition } from "./tools/definition.ts";
import type { JsonSchema } from "./tools/json-schema.ts";
import { defineExtension, type ExtensionDefinition, type ExtensionOptions } from "./extensions/extension.ts";
import type { AgentClass } from "./agent/agent.ts";
import { checkAgentClass } from "./agent/agent-class.ts";
import { checkPlugin } from "./plugins/plugin.ts";
import type { AgentPlugin } from "./agent/agent-plugin.ts";
import type { AgentRegistryTypes } from "./agent/agent-registrations.ts";
import type { ProviderDefinition } from "./agent/providers/provider.ts";
import {
  registeredProvider,
  type LlmProviderModel,
  type LlmProviderOptions,
} from "./agent/providers/registered-provider.ts";
import { Registry, type Registrations } from "./registry/registry.ts";
import type { LoopStrategy } from "./agent/tools-agent/loop-types.ts";

/** Options of `app.tool(...)`: the zod form of a tool. */
export interface ToolOptions<I extends z.ZodType<Record<string, unknown>>> {
  name: string;
  description: string;
  input: I;
  /** Validates the body's structured result (`data`). */
  output?: z.ZodType;
  label?: string;
  /** @default "read" */
  tier?: Tier;
  retry?: RetryPolicyInit;
  /** Concurrency, rate and circuit breaker (docs/flow-control.md §2). */
  limits?: LimitsInit;
  /** @default "parallel" */
  executionMode?: ExecutionMode;
  /** Per-attempt timeout. @default 30 */
  timeoutSeconds?: number;
  /** false keeps the tool off the API surface. @default true */
  apiTool?: boolean;
  /** Puts the tool in the pausing set: its body may return `park(...)`. @default false */
  pauses?: boolean;
  /** Continues a parked run once answered (default: the answer is the output). */
  resume?: (state: unknown, answers: Record<string, unknown>, ctx: ToolContext) => unknown;
  /** One line for the tools agent's system message ("## Tools": `- name: snippet`). */
  promptSnippet?: string;
  /** Rules for the tools agent's system message ("## Tool guidelines"). */
  promptGuidelines?: readonly string[];
}

/**
 * The shared registration handle: the authoring facade over a {@link Registry}, which owns
 * the maps (docs/architecture.md). Tool modules import `app` and register at import time;
 * a runtime reads what is registered here. Registration validates eagerly and throws,
 * naming the rule, so a bad module fails at load.
 */
export class App implements Registrations<AgentRegistryTypes> {
  private readonly registry = new Registry<AgentRegistryTypes>();
  private readonly llmProviderMap = new Map<string, ProviderDefinition>();
  /** The module being loaded; recorded on what it registers. */
  currentModule = "inline";

  get tools(): ReadonlyMap<string, ToolDefinition> {
    return this.registry.tools;
  }
  get policies(): ReadonlyMap<string, RetryPolicy> {
    return this.registry.policies;
  }
  get extensions(): ReadonlyMap<string, ExtensionDefinition> {
    return this.registry.extensions;
  }
  /** Registered agents by tool name; each is also a tool on the surface (origin AGENT). */
  get agents(): ReadonlyMap<string, AgentClass> {
    return this.registry.agents;
  }
  /** Registered plugins by name (docs/plugins.md). */
  get plugins(): ReadonlyMap<string, AgentPlugin> {
    return this.registry.plugins;
  }
  /** Tools-agent loop strategies registered with {@link App.strategy}, by name. */
  get strategies(): ReadonlyMap<string, LoopStrategy> {
    return this.registry.strategies;
  }

  /** LLM providers registered with {@link App.llmProvider}, by name. */
  get llmProviders(): ReadonlyMap<string, ProviderDefinition> {
    return this.llmProviderMap;
  }

  /** Registers a tool from a zod input schema, or a definition built by `defineTool`. */
  tool<I extends z.ZodType<Record<string, unknown>>>(
    options: ToolOptions<I>,
    handler: (input: z.output<I>, ctx: ToolContext) => unknown | Promise<unknown>,
  ): ToolDefinition;
  tool(definition: ToolDefinition): ToolDefinition;
  tool(
    options: ToolOptions<z.ZodType<Record<string, unknown>>> | ToolDefinition,
    handler?: (input: never, ctx: ToolContext) => unknown,
  ): ToolDefinition {
    const def =
      handler === undefined
        ? (options as ToolDefinition)
        : this.fromZod(options as ToolOptions<z.ZodType<Record<string, unknown>>>, handler);
    if (
      handler === undefined &&
      (typeof def !== "object" || typeof (def as ToolDefinition).execute !== "function" || !Object.isFrozen(def))
    )
      throw toolDefinitionError(
        "one-form",
        "app.tool(definition) takes what defineTool returned; or pass (options, handler)",
        {
          issues: [{ path: "", message: "must be what defineTool returned, or pass (options, handler)" }],
        },
      );
    return this.registry.addTool(def);
  }

  /**
   * Registers an agent class (see `src/agent/agent.ts`). It appears on the surface as a
   * tool named `toolName`, with its `ToolInput` as input schema.
   */
  agent<C extends AgentClass>(cls: C): C {
    this.registry.addAgent(checkAgentClass(cls));
    return cls;
  }

  /**
   * Registers a plugin (docs/plugins.md): a config provider, agent storage backends or
   * loop strategies, for the whole platform. Refuses a malformed plugin, a duplicate plugin
   * name, and a strategy or provider name this handle already registered.
   */
  plugin(plugin: AgentPlugin): AgentPlugin {
    return this.registry.addPlugin(checkPlugin(plugin));
  }

  /**
   * Registers a tools-agent loop strategy under `name`, selectable by a run's `strategy`
   * option (docs/plugins.md §4). Contract: see {@link LoopStrategy}.
   */
  strategy(name: string, strategy: LoopStrategy): void {
    if (typeof name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(name))
      throw new DefinitionError(
        "plugin.strategy",
        `app.strategy: the name must match ^[A-Za-z0-9_-]{1,64}$ (got ${JSON.stringify(name)})`,
        {
          issues: [{ path: "/name", message: "must match ^[A-Za-z0-9_-]{1,64}$" }],
        },
      );
    if (typeof strategy !== "function")
      throw new DefinitionError(
        "plugin.strategy",
        `app.strategy("${name}"): the strategy must be a function (cfg, io, history, resumed) => events`,
        {
          subject: name,
          issues: [{ path: "/strategy", message: "must be a function (cfg, io, history, resumed) => events" }],
        },
      );
    this.registry.addStrategy(name, strategy);
  }

  /**
   * Registers a language model under an LLM provider name, selectable by a run's
   * `llmProvider` or as the default with `TAI_LLM_PROVIDER` (docs/agent-stream.md §12.1):
   * typically `scriptedModel({ turns })` to test an agent offline. A name registered here
   * overrides a built-in provider's (and an earlier handle's). Refuses a bad name, a value
   * that is not a model, and a name this handle already registered (rules `provider.shape`,
   * `provider.duplicate-name`).
   */
  llmProvider(name: string, model: LlmProviderModel, options?: LlmProviderOptions): void {
    const def = registeredProvider(name, model, options, this.currentModule);
    if (this.llmProviderMap.has(name))
      throw new DefinitionError(
        "provider.duplicate-name",
        `an LLM provider named "${name}" is already registered on this app`,
        {
          subject: name,
          issues: [{ path: "/name", message: "is already registered on this app" }],
        },
      );
    this.llmProviderMap.set(name, def);
  }

  /**
   * Registers an extension, and the tools it brings (`tools`, each served with `source` =
   * its name). Refuses a factory with a visible config parameter but no schema, a schema
   * that is not draft 2020-12 with root `type: "object"`, a duplicate name, and a tool
   * whose name is taken; nothing is registered then.
   */
  extension(options: ExtensionOptions): ExtensionDefinition {
    return this.registry.addExtension(defineExtension(options, this.currentModule));
  }

  /** Declares a retry policy on a name (a tool, preset or branch). */
  retryPolicy(name: string, init: RetryPolicyInit): RetryPolicy {
    return this.registry.declarePolicy(name, resolvePolicy(name, init));
  }

  /** Contract: called synchronously after every registration. */
  onChange(listener: () => void): () => void {
    return this.registry.onChange(listener);
  }

  private fromZod(
    options: ToolOptions<z.ZodType<Record<string, unknown>>>,
    handler: (input: never, ctx: ToolContext) => unknown,
  ): ToolDefinition {
    if (typeof options !== "object" || options === null)
      throw toolDefinitionError("one-form", "app.tool needs an options object", {
        issues: [{ path: "", message: "must be an options object" }],
      });
    const { input, output, ...rest } = options;
    if (!(input instanceof z.ZodType))
      throw toolDefinitionError("object-schema", `"${options.name}": input must be a zod schema (z.object({...}))`, {
        subject: typeof options.name === "string" ? options.name : undefined,
        issues: [{ path: "/input", message: "must be a zod schema (z.object({...}))" }],
      });
    const parameters = toJsonSchema(input, "input");
    // A zod object strips unknown keys silently; at the tool's door an unknown argument is
    // almost always a typo, so the root refuses it unless the schema says otherwise.
    if (parameters.type === "object" && parameters.additionalProperties === undefined)
      parameters.additionalProperties = false;
    const outputSchema = output ? toJsonSchema(output, "output") : undefined;
    const def = defineTool(
      {
        ...rest,
        parameters,
        ...(outputSchema ? { outputSchema } : {}),
        execute: handler as ToolDefinition["execute"],
      },
      undefined,
      this.currentModule,
    );
    return Object.freeze({
      ...def,
      parse: (value: Record<string, unknown>) => {
        const r = input.safeParse(value);
        return r.success
          ? { ok: true as const, value: r.data }
          : {
              ok: false as const,
              issues: reportedZodIssues(r.error),
            };
      },
    });
  }
}

function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  return json;
}

/** The process-wide app handle that tool modules register on. */
export const app = new App();
