import type { ModelMessage } from "ai";
import type { DoneOutcome, PlannedCall } from "./checkpoint.ts";
import type { UsageSnapshot } from "./usage.ts";

/** A turn's calls while they run: what is done, and the tool run each started call follows. */
export interface BatchProgress {
  calls: PlannedCall[];
  done: Record<string, DoneOutcome>;
  toolRuns: Record<string, string>;
}

/**
 * What a RUNNING tools-agent run stores as its checkpoint's `progress` (docs/agent-stream.md §4.3), after each
 * completed model turn and each stored tool result: the conversation so far (stored form), the turn in progress's
 * calls, the turns numbered and the tokens used. A continuation on another instance rebuilds the run from it.
 */
export interface RunProgress {
  messages: ModelMessage[];
  batch: BatchProgress | null;
  turns: number;
  agentTurns?: Record<string, number>;
  usage?: UsageSnapshot;
}
