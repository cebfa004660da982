import type { Issue } from "../../errors.ts";

/** The loop a sub-agent runs when its spec names no strategy: the tools-agent loop. */
export const DEFAULT_STRATEGY = "default";

/**
 * The loop strategies a sub-agent may name. Only the tools-agent loop exists today; a
 * named strategy registry plugs in here, and a spec naming anything else is refused.
 */
const KNOWN_STRATEGIES: ReadonlySet<string> = new Set([DEFAULT_STRATEGY]);

/** The strategy a spec runs with; an unknown name is an issue at `path` that lists the known ones. */
export function checkStrategy(name: string | undefined, path: string, issues: Issue[]): string {
  if (name === undefined) return DEFAULT_STRATEGY;
  if (!KNOWN_STRATEGIES.has(name)) issues.push({ path, message: `no loop strategy named "${name}" (known: ${[...KNOWN_STRATEGIES].join(", ")})` });
  return name;
}
