import { DEFAULT_STRATEGY } from "../../plugins/plugin-catalog.ts";
import { runLoop } from "../tools-agent/loop.ts";
import type { LoopStrategy } from "../tools-agent/loop-types.ts";

export { DEFAULT_STRATEGY };

/** The strategies every runtime knows: the tools-agent loop of docs/agent-stream.md §5, as "tools". */
export const BUILTIN_STRATEGIES: ReadonlyMap<string, LoopStrategy> = new Map([[DEFAULT_STRATEGY, runLoop]]);
