import { appliedLimits } from "../dispatch/run-limits.ts";
import type { AppliedLimits } from "../limits/flow-control.ts";
import type { Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Caller } from "../auth/roles.ts";
import { inScope } from "../auth/key-scope.ts";
import { isRedacted, mayRun } from "../auth/tiers.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { Surface } from "../registry/surface.ts";
import type { JsonSchema } from "../tools/json-schema.ts";

/**
 * The output schema MCP clients are told about, or undefined. MCP wants an object root,
 * and the official client validates every `structuredContent` of a tool that declares
 * one: a secret-tier tool declares none, since only its caller's own answer carries its
 * output and a re-issued idempotency key answers it redacted (`dispatch/caller-answer.ts`).
 */
export function advertisedOutputSchema(entry: SurfaceEntry | undefined): JsonSchema | undefined {
  const schema = entry?.outputSchema;
  if (!schema || isRedacted(entry.tier) || schema.type !== "object") return undefined;
  return schema;
}

/**
 * The hints MCP clients read, derived from the tier and the retry policy:
 * `readOnlyHint` for `read`; `destructiveHint` for `write` and `fenced` (a `secret` tool
 * leaves it to MCP's default); `idempotentHint` from the effective policy's
 * `idempotent` claim.
 */
export function annotationsOf(entry: SurfaceEntry, idempotent: boolean): ToolAnnotations {
  const annotations: ToolAnnotations = { readOnlyHint: entry.tier === "read", idempotentHint: idempotent };
  if (entry.label) annotations.title = entry.label;
  if (entry.tier === "write" || entry.tier === "fenced") annotations.destructiveHint = true;
  return annotations;
}

/** One surface entry as an MCP tool. */
export function mcpTool(entry: SurfaceEntry, surface: Surface): Tool {
  const policy = surface.policyFor(entry);
  const outputSchema = advertisedOutputSchema(entry);
  return {
    name: entry.name,
    ...(entry.label ? { title: entry.label } : {}),
    description: entry.description,
    inputSchema: entry.inputSchema as Tool["inputSchema"],
    ...(outputSchema ? { outputSchema: outputSchema as Tool["outputSchema"] } : {}),
    annotations: annotationsOf(entry, policy?.policy.idempotent === true),
    // A background run's input is stored for whichever instance executes it; a secret-tier one's never is.
    execution: { taskSupport: isRedacted(entry.tier) ? "forbidden" : "optional" },
    _meta: {
      "tai42/origin": entry.origin,
      "tai42/tier": entry.tier,
      "tai42/pauses": entry.pauses,
      ...limitsMeta(appliedLimits(surface, entry)),
    },
  };
}

/** The tools `caller` may run, as `tools/list` answers them: the active surface filtered by tier and key scope. */
export function toolsFor(surface: Surface, caller: Caller): Tool[] {
  return surface
    .list()
    .filter((e) => mayRun(caller.role, e.tier) && inScope(caller, e.name))
    .map((e) => mcpTool(e, surface));
}

/** `_meta["tai42/limits"]`: the limits along the tool's chain, as GraphQL's `Tool.limits` serves them; none: absent. */
function limitsMeta(applied: AppliedLimits): Record<string, unknown> {
  if (!applied.length) return {};
  return { "tai42/limits": applied.map((a) => ({ declaredOn: a.name, ...a.limits })) };
}
