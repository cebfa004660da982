import { ToolError } from "../errors.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { ToolContext } from "../tools/definition.ts";

/**
 * What executing and settling a run reads of its entry: the name it logs and reports under, the per-attempt
 * timeout, whether it may pause, and the output schema its result must match.
 */
export type ExecutedEntry = Pick<SurfaceEntry, "name" | "timeoutSeconds" | "pauses" | "outputSchema">;

/** An entry to execute and the body a run executes under it. */
export interface Execution {
  entry: ExecutedEntry;
  body: (ctx: ToolContext) => Promise<unknown>;
}

/**
 * A parked run whose tool left the surface before it resumed: its body fails NOT_FOUND, so the entry cannot pause
 * again, declares no output schema, and its one attempt gets 30 seconds.
 */
export function vanished(tool: string): Execution {
  return {
    entry: { name: tool, pauses: false, timeoutSeconds: 30 },
    body: async () => {
      throw new ToolError(`"${tool}" is no longer on the surface; the parked run cannot resume`, { kind: "NOT_FOUND" });
    },
  };
}
