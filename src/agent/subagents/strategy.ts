import type { Issue } from "../../errors.ts";
import { UnknownNameError } from "../../plugins/plugin-catalog.ts";
import { BUILTIN_STRATEGIES, DEFAULT_STRATEGY } from "../strategies/strategy.ts";
import type { LoopStrategy } from "../tools-agent/loop-types.ts";

/** Looks a loop strategy up by name in the runtime's registry (docs/plugins.md §4); throws {@link UnknownNameError}. */
export type StrategyLookup = (name: string | undefined) => LoopStrategy;

/**
 * The loop a sub-agent runs: the strategy its spec names, from the same registry as a
 * run's `strategy` option (the tools-agent loop, "tools", when it names none). An unknown
 * name is an issue at `path` that lists the known ones.
 */
export function checkStrategy(
  name: string | undefined,
  path: string,
  issues: Issue[],
  lookup: StrategyLookup,
): LoopStrategy {
  try {
    return lookup(name);
  } catch (e) {
    if (!(e instanceof UnknownNameError)) throw e;
    issues.push({ path, message: `no loop strategy named "${e.requested}" (known: ${e.known.join(", ")})` });
    return BUILTIN_STRATEGIES.get(DEFAULT_STRATEGY)!;
  }
}
