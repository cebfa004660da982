import { DefinitionError } from "../definition-error.ts";
import { extensionDefinitionError, type ExtensionDefinition } from "../extensions/extension.ts";
import type { Plugin, PluginParts } from "../plugins/plugin.ts";
import { builtinKinds } from "../connectors/builtin-kinds.ts";
import type { RetryPolicy } from "../retry/policy.ts";
import { toolDefinitionError } from "../tools/define-tool.ts";
import type { ToolDefinition } from "../tools/definition.ts";

/** What the registry files of an agent: a declaration under its tool name (`agent/agent.ts` types it). */
export interface AgentDeclaration {
  readonly toolName: string;
}

/**
 * The types of what the registry files for agents without reading it: its agents, its
 * loop strategies and the agent parts of its plugins. An app handle names them
 * (`agent/agent-plugin.ts`), so this room never imports the agent room.
 */
export interface RegistryTypes {
  agent: AgentDeclaration;
  strategy: unknown;
  plugin: PluginParts;
}

/**
 * What the code-declared part of the surface is read from (docs/architecture.md): the
 * registered tools and their retry declarations, extensions, agents, plugins and loop
 * strategies, by name. Read-only: only {@link Registry}'s `add…` methods change it.
 */
export interface Registrations<T extends RegistryTypes = RegistryTypes> {
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  /** Code-declared retry policies, by the tool, preset or branch name they are declared on. */
  readonly policies: ReadonlyMap<string, RetryPolicy>;
  readonly extensions: ReadonlyMap<string, ExtensionDefinition>;
  /** Agents by tool name; each is also a tool on the surface (origin AGENT). */
  readonly agents: ReadonlyMap<string, T["agent"]>;
  readonly plugins: ReadonlyMap<string, Plugin<T["plugin"]>>;
  /** Loop strategies registered on their own (a plugin's are in `plugins`). */
  readonly strategies: ReadonlyMap<string, T["strategy"]>;
}

type NameKind = "strategy" | "checkpoint provider" | "store provider" | "connector kind";
const PLUGIN_FIELD: Record<NameKind, string> = {
  strategy: "strategies",
  "checkpoint provider": "checkpointProviders",
  "store provider": "storeProviders",
  "connector kind": "connectors",
};

/** The one issue of a refused name: the reason, at the path of the name in its declaration. */
const at = (path: string, message: string) => ({ issues: [{ path, message }] });

/**
 * The registration maps of one app handle (`app.ts` is the authoring facade above it).
 * Every `add…` takes a declaration its author's door already checked, refuses a name that
 * is taken (nothing is registered then), stores it and tells the listeners.
 */
export class Registry<T extends RegistryTypes = RegistryTypes> implements Registrations<T> {
  private readonly toolMap = new Map<string, ToolDefinition>();
  private readonly policyMap = new Map<string, RetryPolicy>();
  private readonly extensionMap = new Map<string, ExtensionDefinition>();
  private readonly agentMap = new Map<string, T["agent"]>();
  private readonly pluginMap = new Map<string, Plugin<T["plugin"]>>();
  private readonly strategyMap = new Map<string, T["strategy"]>();
  private readonly listeners = new Set<() => void>();

  get tools(): ReadonlyMap<string, ToolDefinition> {
    return this.toolMap;
  }
  get policies(): ReadonlyMap<string, RetryPolicy> {
    return this.policyMap;
  }
  get extensions(): ReadonlyMap<string, ExtensionDefinition> {
    return this.extensionMap;
  }
  get agents(): ReadonlyMap<string, T["agent"]> {
    return this.agentMap;
  }
  get plugins(): ReadonlyMap<string, Plugin<T["plugin"]>> {
    return this.pluginMap;
  }
  get strategies(): ReadonlyMap<string, T["strategy"]> {
    return this.strategyMap;
  }

  /** A tool and its own retry declaration; refuses a name a tool or an agent holds, or a taken policy name. */
  addTool(def: ToolDefinition): ToolDefinition {
    const taken = this.toolMap.get(def.name) ?? (this.agentMap.has(def.name) ? { module: "an agent" } : undefined);
    if (taken)
      throw toolDefinitionError(
        "duplicate-name",
        `a tool named "${def.name}" is already registered (${taken.module})`,
        {
          subject: def.name,
          ...at("/name", `is already registered (${taken.module})`),
        },
      );
    if (def.retry) this.putPolicy(def.name, def.retry);
    this.toolMap.set(def.name, def);
    this.changed();
    return def;
  }

  /** An agent under its tool name, which no tool or agent may hold already. */
  addAgent(cls: T["agent"]): void {
    if (this.agentMap.has(cls.toolName) || this.toolMap.has(cls.toolName))
      throw new DefinitionError("agent.duplicate-name", `"${cls.toolName}" is already registered on this app`, {
        subject: cls.toolName,
        ...at("/toolName", "is already registered on this app"),
      });
    this.agentMap.set(cls.toolName, cls);
    this.changed();
  }

  /** An extension and the tools it brings, all or nothing. */
  addExtension(def: ExtensionDefinition): ExtensionDefinition {
    const known = this.extensionMap.get(def.name);
    const subject = def.name;
    if (known)
      throw extensionDefinitionError(
        "duplicate-name",
        `an extension named "${def.name}" is already registered (${known.module})`,
        {
          subject,
          ...at("/name", `is already registered (${known.module})`),
        },
      );
    // All or nothing: a refused tool leaves neither the extension nor any of its tools registered.
    for (const [i, tool] of def.tools.entries()) {
      const taken = this.toolMap.get(tool.name) ?? (this.agentMap.has(tool.name) ? { module: "an agent" } : undefined);
      if (taken)
        throw extensionDefinitionError(
          "duplicate-name",
          `"${def.name}": its tool "${tool.name}" is already registered (${taken.module})`,
          {
            subject,
            ...at(`/tools/${i}/name`, `is already registered (${taken.module})`),
          },
        );
      if (tool.retry && this.policyMap.has(tool.name))
        throw extensionDefinitionError(
          "duplicate-policy",
          `"${def.name}": a retry policy is already declared on "${tool.name}"`,
          {
            subject,
            ...at(`/tools/${i}/retry`, `a retry policy is already declared on "${tool.name}"`),
          },
        );
    }
    for (const tool of def.tools) {
      if (tool.retry) this.putPolicy(tool.name, tool.retry);
      this.toolMap.set(tool.name, tool);
    }
    this.extensionMap.set(def.name, def);
    this.changed();
    return def;
  }

  /** A plugin; refuses a taken plugin name, and a strategy or provider name this registry already has. */
  addPlugin(plugin: Plugin<T["plugin"]>): Plugin<T["plugin"]> {
    if (this.pluginMap.has(plugin.name))
      throw new DefinitionError(
        "plugin.duplicate-name",
        `a plugin named "${plugin.name}" is already registered on this app`,
        {
          subject: plugin.name,
          ...at("/name", "is already registered on this app"),
        },
      );
    for (const name of Object.keys(plugin.strategies ?? {})) this.refuseTaken("strategy", name, plugin.name);
    for (const name of Object.keys(plugin.checkpointProviders ?? {}))
      this.refuseTaken("checkpoint provider", name, plugin.name);
    for (const name of Object.keys(plugin.storeProviders ?? {})) this.refuseTaken("store provider", name, plugin.name);
    for (const name of Object.keys(plugin.connectors ?? {})) this.refuseTaken("connector kind", name, plugin.name);
    this.pluginMap.set(plugin.name, plugin);
    this.changed();
    return plugin;
  }

  /** A loop strategy under a name no strategy (own or a plugin's) holds. */
  addStrategy(name: string, strategy: T["strategy"]): void {
    this.refuseTaken("strategy", name, null);
    this.strategyMap.set(name, strategy);
    this.changed();
  }

  /** A retry policy on a name (a tool, preset or branch); one declaration per name. */
  declarePolicy(name: string, policy: RetryPolicy): RetryPolicy {
    this.putPolicy(name, policy);
    this.changed();
    return policy;
  }

  /** Contract: called synchronously after every registration. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private putPolicy(name: string, policy: RetryPolicy): void {
    if (this.policyMap.has(name))
      throw new DefinitionError("retry.duplicate-name", `a retry policy is already declared on "${name}"`, {
        subject: name,
        ...at("", "a retry policy is already declared on this name"),
      });
    this.policyMap.set(name, policy);
  }

  private refuseTaken(kind: NameKind, name: string, plugin: string | null): void {
    const plugins = [...this.pluginMap.values()];
    const builtin = kind === "connector kind" && builtinKinds().some((k) => k.name === name);
    const taken =
      kind === "strategy"
        ? this.strategyMap.has(name) || plugins.some((p) => p.strategies?.[name])
        : kind === "connector kind"
          ? builtin || plugins.some((p) => p.connectors?.[name])
          : plugins.some((p) => (kind === "checkpoint provider" ? p.checkpointProviders : p.storeProviders)?.[name]);
    if (!taken) return;
    const message = builtin
      ? `"${name}" is the name of a built-in connector kind`
      : `a ${kind} named "${name}" is already registered on this app`;
    throw new DefinitionError("plugin.duplicate-name", `${plugin ? `plugin "${plugin}": ` : ""}${message}`, {
      subject: plugin ?? name,
      ...at(
        plugin ? `/${PLUGIN_FIELD[kind]}/${name}` : "/name",
        builtin ? "is a built-in connector kind" : "is already registered on this app",
      ),
    });
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
