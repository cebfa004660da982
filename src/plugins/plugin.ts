import { z } from "zod";
import type { ConfigProvider } from "./config-provider.ts";
import type { ConnectorKind } from "../connectors/connector-kind.ts";
import { DefinitionError } from "../definition-error.ts";
import { fn, wireSafeName } from "../validation/common.ts";
import { zodIssues } from "../validation/declaration.ts";

/**
 * The types of what a plugin brings for agents, named by the room that runs agents
 * (`agent/agent-plugin.ts`): this room files them by name and never reads them.
 */
export interface PluginParts {
  strategy: unknown;
  checkpointProvider: unknown;
  storeProvider: unknown;
}

/**
 * A plugin extends the whole platform, where an extension extends one tool
 * (docs/plugins.md). It is registered with `app.plugin(...)` and may bring any of: a
 * config provider (where `!ENV` values come from), storage backends for agents
 * (checkpoint and store providers, by name) and agent loop strategies (by name).
 */
export interface Plugin<P extends PluginParts = PluginParts> {
  /** Unique on its app handle; shown in errors. `^[A-Za-z0-9_-]{1,64}$`. */
  name: string;
  description?: string;
  /** Consulted for `!ENV NAME` before the process environment (docs/plugins.md §2). */
  configProvider?: ConfigProvider;
  /** Thread-memory backends, selectable by a run's `checkpointProvider`. */
  checkpointProviders?: Record<string, P["checkpointProvider"]>;
  /** Long-term store backends, selectable by a run's `storeProvider`. */
  storeProviders?: Record<string, P["storeProvider"]>;
  /** Tools-agent loop strategies, selectable by a run's `strategy`. */
  strategies?: Record<string, P["strategy"]>;
  /** Connector kinds, by their name (docs/plugins.md §5, docs/connectors.md §1): each key equals its kind's `name`. */
  connectors?: Record<string, ConnectorKind>;
}

const NAME = wireSafeName();
const KIND_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const withMethods = (methods: string[]) => z.object(Object.fromEntries(methods.map((m) => [m, fn()])));

const PluginSchema = z.strictObject({
  name: NAME,
  description: z.string().optional(),
  configProvider: z.object({ name: z.string().min(1), lookup: fn() }).optional(),
  checkpointProviders: z.record(NAME, withMethods(["history", "append"])).optional(),
  storeProviders: z.record(NAME, withMethods(["get", "put", "delete", "list"])).optional(),
  strategies: z.record(NAME, fn()).optional(),
  connectors: z
    .record(
      z.string().regex(KIND_NAME, { error: "must match ^[a-z][a-z0-9-]{0,31}$" }),
      z.object({
        name: z.string({ error: "must be a string" }),
        description: z.string({ error: "must be a string" }),
        settings: z.custom<z.ZodType>((v) => v instanceof z.ZodType, { error: "must be a zod schema" }),
        sealed: z.array(z.string(), { error: "must be an array of paths" }),
        origins: fn(),
        connect: fn(),
      }),
    )
    .superRefine((kinds, ctx) => {
      for (const [key, kind] of Object.entries(kinds ?? {}))
        if (kind && typeof kind === "object" && kind.name !== key)
          ctx.addIssue({ code: "custom", path: [key, "name"], message: `must equal its key "${key}"` });
    })
    .optional(),
});

/** Checks a plugin's shape; throws a {@link DefinitionError} of rule `plugin.shape` naming every problem. */
export function checkPlugin<T>(plugin: T): T {
  const r = PluginSchema.safeParse(plugin);
  if (r.success) return plugin;
  const label =
    typeof (plugin as { name?: unknown })?.name === "string"
      ? `plugin "${(plugin as { name: string }).name}"`
      : "plugin";
  throw new DefinitionError(
    "plugin.shape",
    `${label}: ${r.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(root)"} ${i.message}`).join("; ")}`,
    {
      subject: label,
      issues: zodIssues(r.error),
    },
  );
}
