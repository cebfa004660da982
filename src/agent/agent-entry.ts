import type { AgentClass } from "./agent.ts";
import { agentInputSchema, bakeableFields } from "./agent-class.ts";
import type { ToolContext } from "../tools/definition.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import { reportedZodIssues } from "../validation/declaration.ts";

/**
 * Runs an agent for its surface entry. Contract: resolves with the drained value of the
 * run; throws a ToolError for a failure or an interrupt (the chokepoint records it).
 */
export type AgentInvoker = (cls: AgentClass, input: Record<string, unknown>, ctx: ToolContext) => Promise<unknown>;

/**
 * An agent as a tool on the surface (origin AGENT): its ToolInput as input schema,
 * preset-bakeable as its class declares (docs/seed-conformance.md, 002-09 to 002-12), dispatched through the chokepoint
 * like any tool.
 */
export function agentEntry(cls: AgentClass, invoke: AgentInvoker): SurfaceEntry {
  return {
    name: cls.toolName,
    label: undefined,
    description: cls.toolDescription,
    origin: "AGENT",
    tier: cls.tier,
    inputSchema: agentInputSchema(cls),
    executionMode: "parallel",
    pauses: false,
    extensionStack: [],
    bakeableFields: bakeableFields(cls),
    timeoutSeconds: cls.timeoutSeconds,
    listed: true,
    policyChain: [cls.toolName],
    prepare: (input) => {
      const r = cls.ToolInput.safeParse(input);
      return r.success
        ? { ok: true, value: { ...input, ...r.data } }
        : {
            ok: false,
            issues: reportedZodIssues(r.error),
          };
    },
    invoke: (input, ctx) => invoke(cls, input as Record<string, unknown>, ctx),
    module: "agent",
  };
}
