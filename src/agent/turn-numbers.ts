import type { StreamEvent } from "./events.ts";

/**
 * Numbers the text of an agent that does not (a custom agent's own `astream`,
 * docs/agent-stream.md §2.2): a delta without `turn` is turn 1, and an answer terminal
 * without `turn` names the last turn of the run's own agent's MessageDeltas (1 after
 * unnumbered ones), or null when none streamed. Events that carry their numbers pass
 * through unchanged.
 */
export function turnNumbering(): (event: StreamEvent) => StreamEvent {
  let last: number | null = null;
  return (event) => {
    if (event.type === "message_delta" || event.type === "intermediate_delta") {
      const numbered = event.turn === undefined ? { ...event, turn: 1 } : event;
      if (numbered.type === "message_delta" && !numbered.agent) last = numbered.turn ?? 1;
      return numbered;
    }
    if ((event.type === "message_final" || event.type === "structured_final") && event.turn === undefined)
      return { ...event, turn: last };
    return event;
  };
}
