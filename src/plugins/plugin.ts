import { z } from "zod";
import type { LoopStrategy } from "../agent/strategies/strategy.ts";
import type { CheckpointProvider, StoreProvider } from "./agent-storage.ts";
import type { ConfigProvider } from "./config-provider.ts";

/**
 * A plugin extends the whole platform, where an extension extends one tool
 * (docs/plugins.md). It is registered with `app.plugin(...)` and may bring any of: a
 * config provider (where `!ENV` values come from), storage backends for agents
 * (checkpoint and store providers, by name) and agent loop strategies (by name).
 */
export interface Plugin {
  /** Unique on its app handle; shown in errors. `^[A-Za-z0-9_-]{1,64}$`. */
  name: string;
  description?: string;
  /** Consulted for `!ENV NAME` before the process environment (docs/plugins.md §2). */
  configProvider?: ConfigProvider;
  /** Thread-memory backends, selectable by a run's `checkpointProvider`. */
  checkpointProviders?: Record<string, CheckpointProvider>;
  /** Long-term store backends, selectable by a run's `storeProvider`. */
  storeProviders?: Record<string, StoreProvider>;
  /** Tools-agent loop strategies, selectable by a run's `strategy`. */
  strategies?: Record<string, LoopStrategy>;
}

/** A plugin `app.plugin(...)` refused; the message names the plugin and the rule. */
export class PluginDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PluginDefinitionError";
  }
}

const NAME = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must match ^[A-Za-z0-9_-]{1,64}$");
const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", "must be a function");
const withMethods = (methods: string[]) => z.object(Object.fromEntries(methods.map((m) => [m, fn])));

const PluginSchema = z.strictObject({
  name: NAME,
  description: z.string().optional(),
  configProvider: z.object({ name: z.string().min(1), lookup: fn }).optional(),
  checkpointProviders: z.record(NAME, withMethods(["history", "append"])).optional(),
  storeProviders: z.record(NAME, withMethods(["get", "put", "delete", "list"])).optional(),
  strategies: z.record(NAME, fn).optional(),
});

/** Checks a plugin's shape; throws {@link PluginDefinitionError} naming every problem. */
export function checkPlugin(plugin: unknown): Plugin {
  const r = PluginSchema.safeParse(plugin);
  if (r.success) return plugin as Plugin;
  const label = typeof (plugin as { name?: unknown })?.name === "string" ? `plugin "${(plugin as { name: string }).name}"` : "plugin";
  throw new PluginDefinitionError(`${label}: ${r.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(root)"} ${i.message}`).join("; ")}`);
}
