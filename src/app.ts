import { z } from "zod";
import type { Tier } from "./auth/roles.ts";
import { resolvePolicy, type RetryPolicy, type RetryPolicyInit } from "./retry/policy.ts";
import { defineTool, ToolDefinitionError } from "./tools/define-tool.ts";
import type { ExecutionMode, ToolContext, ToolDefinition } from "./tools/definition.ts";
import type { JsonSchema } from "./tools/json-schema.ts";
import { defineExtension, ExtensionDefinitionError, type ExtensionDefinition, type ExtensionOptions } from "./extensions/extension.ts";
import type { AgentClass } from "./agent/agent.ts";
import { AgentDefinitionError, checkAgentClass } from "./agent/agent-class.ts";
import type { LoopStrategy } from "./agent/strategies/strategy.ts";
import { checkPlugin, PluginDefinitionError, type Plugin } from "./plugins/plugin.ts";

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

type Listener = () => void;

/**
 * The shared registration handle. Tool modules import `app` and register at import
 * time; a runtime reads what is registered here. Registration validates eagerly and
 * throws, naming the rule, so a bad module fails at load.
 */
export class App {
  readonly tools = new Map<string, ToolDefinition>();
  readonly policies = new Map<string, RetryPolicy>();
  readonly extensions = new Map<string, ExtensionDefinition>();
  /** Registered agents by tool name; each is also a tool on the surface (origin AGENT). */
  readonly agents = new Map<string, AgentClass>();
  /** Registered plugins by name (docs/plugins.md). */
  readonly plugins = new Map<string, Plugin>();
  /** Tools-agent loop strategies registered with {@link App.strategy}, by name. */
  readonly strategies = new Map<string, LoopStrategy>();
  private readonly listeners = new Set<Listener>();
  /** The module being loaded; recorded on what it registers. */
  currentModule = "inline";

  /** Registers a tool from a zod input schema, or a definition built by `defineTool`. */
  tool<I extends z.ZodType<Record<string, unknown>>>(
    options: ToolOptions<I>,
    handler: (input: z.output<I>, ctx: ToolContext) => unknown | Promise<unknown>,
  ): ToolDefinition;
  tool(definition: ToolDefinition): ToolDefinition;
  tool(options: ToolOptions<z.ZodType<Record<string, unknown>>> | ToolDefinition, handler?: (input: never, ctx: ToolContext) => unknown): ToolDefinition {
    const def = handler === undefined ? (options as ToolDefinition) : this.fromZod(options as ToolOptions<z.ZodType<Record<string, unknown>>>, handler);
    if (handler === undefined && (typeof def !== "object" || typeof (def as ToolDefinition).execute !== "function" || !Object.isFrozen(def)))
      throw new ToolDefinitionError("one-form", "app.tool(definition) takes what defineTool returned; or pass (options, handler)");
    if (this.tools.has(def.name)) throw new ToolDefinitionError("duplicate-name", `a tool named "${def.name}" is already registered (${this.tools.get(def.name)!.module})`);
    if (def.retry) this.declarePolicy(def.name, def.retry);
    this.tools.set(def.name, def);
    this.changed();
    return def;
  }

  /**
   * Registers an agent class (see `src/agent/agent.ts`). It appears on the surface as a
   * tool named `toolName`, with its `ToolInput` as input schema.
   */
  agent<C extends AgentClass>(cls: C): C {
    const checked = checkAgentClass(cls);
    if (this.agents.has(checked.toolName) || this.tools.has(checked.toolName))
      throw new AgentDefinitionError("duplicate-name", `"${checked.toolName}" is already registered on this app`);
    this.agents.set(checked.toolName, checked);
    this.changed();
    return cls;
  }

  /**
   * Registers a plugin (docs/plugins.md): a config provider, agent storage backends or
   * loop strategies, for the whole platform. Refuses a malformed plugin, a duplicate plugin
   * name, and a strategy or provider name this handle already registered.
   */
  plugin(plugin: Plugin): Plugin {
    const checked = checkPlugin(plugin);
    if (this.plugins.has(checked.name)) throw new PluginDefinitionError(`a plugin named "${checked.name}" is already registered on this app`);
    for (const name of Object.keys(checked.strategies ?? {})) this.refuseTaken("strategy", name, checked.name);
    for (const [kind, names] of [
      ["checkpoint provider", Object.keys(checked.checkpointProviders ?? {})],
      ["store provider", Object.keys(checked.storeProviders ?? {})],
    ] as const)
      for (const name of names) this.refuseTaken(kind, name, checked.name);
    this.plugins.set(checked.name, checked);
    this.changed();
    return checked;
  }

  /**
   * Registers a tools-agent loop strategy under `name`, selectable by a run's `strategy`
   * option (docs/plugins.md §4). Contract: see {@link LoopStrategy}.
   */
  strategy(name: string, strategy: LoopStrategy): void {
    if (typeof name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new PluginDefinitionError(`app.strategy: the name must match ^[A-Za-z0-9_-]{1,64}$ (got ${JSON.stringify(name)})`);
    if (typeof strategy !== "function") throw new PluginDefinitionError(`app.strategy("${name}"): the strategy must be a function (cfg, io, history, resumed) => events`);
    this.refuseTaken("strategy", name, null);
    this.strategies.set(name, strategy);
    this.changed();
  }

  private refuseTaken(kind: "strategy" | "checkpoint provider" | "store provider", name: string, plugin: string | null): void {
    const plugins = [...this.plugins.values()];
    const taken =
      kind === "strategy"
        ? this.strategies.has(name) || plugins.some((p) => p.strategies?.[name])
        : plugins.some((p) => (kind === "checkpoint provider" ? p.checkpointProviders : p.storeProviders)?.[name]);
    if (taken) throw new PluginDefinitionError(`${plugin ? `plugin "${plugin}": ` : ""}a ${kind} named "${name}" is already registered on this app`);
  }

  /**
   * Registers an extension, and the tools it brings (`tools`, each served with `source` =
   * its name). Refuses a factory with a visible config parameter but no schema, a schema
   * that is not draft 2020-12 with root `type: "object"`, a duplicate name, and a tool
   * whose name is taken; nothing is registered then.
   */
  extension(options: ExtensionOptions): ExtensionDefinition {
    const def = defineExtension(options, this.currentModule);
    if (this.extensions.has(def.name)) throw new ExtensionDefinitionError(`an extension named "${def.name}" is already registered (${this.extensions.get(def.name)!.module})`);
    // All or nothing: a refused tool leaves neither the extension nor any of its tools registered.
    for (const tool of def.tools) {
      const taken = this.tools.get(tool.name) ?? (this.agents.has(tool.name) ? { module: "an agent" } : undefined);
      if (taken) throw new ExtensionDefinitionError(`"${def.name}": its tool "${tool.name}" is already registered (${taken.module})`);
      if (tool.retry && this.policies.has(tool.name)) throw new ExtensionDefinitionError(`"${def.name}": a retry policy is already declared on "${tool.name}"`);
    }
    for (const tool of def.tools) {
      if (tool.retry) this.declarePolicy(tool.name, tool.retry);
      this.tools.set(tool.name, tool);
    }
    this.extensions.set(def.name, def);
    this.changed();
    return def;
  }

  /** Declares a retry policy on a name (a tool, preset or branch). */
  retryPolicy(name: string, init: RetryPolicyInit): RetryPolicy {
    const policy = resolvePolicy(name, init);
    this.declarePolicy(name, policy);
    this.changed();
    return policy;
  }

  /** Contract: called synchronously after every registration. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private declarePolicy(name: string, policy: RetryPolicy): void {
    if (this.policies.has(name)) throw new Error(`a retry policy is already declared on "${name}"`);
    this.policies.set(name, policy);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  private fromZod(options: ToolOptions<z.ZodType<Record<string, unknown>>>, handler: (input: never, ctx: ToolContext) => unknown): ToolDefinition {
    if (typeof options !== "object" || options === null) throw new ToolDefinitionError("one-form", "app.tool needs an options object");
    const { input, output, ...rest } = options;
    if (!(input instanceof z.ZodType)) throw new ToolDefinitionError("object-schema", `"${options.name}": input must be a zod schema (z.object({...}))`);
    const parameters = toJsonSchema(input, "input");
    // A zod object strips unknown keys silently; at the tool's door an unknown argument is
    // almost always a typo, so the root refuses it unless the schema says otherwise.
    if (parameters.type === "object" && parameters.additionalProperties === undefined) parameters.additionalProperties = false;
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
          : { ok: false as const, issues: r.error.issues.map((i) => ({ path: i.path.length ? `/${i.path.join("/")}` : "", message: i.message })) };
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
