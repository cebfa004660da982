/** What {@link AnswerAccumulator} reads of an agent stream event: `agentStream`'s events, or the server's own. */
export interface AnswerEventLike {
  type: string;
  agent?: string | null;
  text?: string | null;
  turn?: number | null;
  data?: unknown;
}

/**
 * Follows the answer of an agent run as it streams (docs/agent-stream.md §2.2): it keeps
 * the text of the latest turn of the run's own agent (`agent` null) and starts afresh when
 * a new turn begins, so text the model wrote beside its tool calls, or an answer sent back
 * to be fixed, gives way to the next turn. At the terminal, `text` is the answer:
 * `MessageFinal.text` (which the deltas of the turn it names join to), or for a
 * `StructuredFinal` the JSON text it was parsed from.
 */
export class AnswerAccumulator {
  #text = "";
  #turn: number | null = null;
  #done = false;

  /** The text so far: the latest turn's, or the answer once the terminal came. */
  get text(): string {
    return this.#text;
  }

  /** The turn `text` belongs to (null before any delta, or for an answer no delta carried). */
  get turn(): number | null {
    return this.#turn;
  }

  /** Whether the answer terminal came: `text` is then the answer. */
  get done(): boolean {
    return this.#done;
  }

  /** Reads one event; returns `text` after it. Events other than the run's own text and answer leave it as it was. */
  push(event: AnswerEventLike): string {
    if (this.#done || event.agent) return this.#text;
    if (event.type === "message_delta") {
      const turn = event.turn ?? 1;
      if (turn !== this.#turn) {
        this.#turn = turn;
        this.#text = "";
      }
      this.#text += event.text ?? "";
    } else if (event.type === "message_final") {
      this.#done = true;
      this.#turn = event.turn ?? null;
      this.#text = event.text ?? "";
    } else if (event.type === "structured_final") {
      this.#done = true;
      if ((event.turn ?? null) === null || event.turn !== this.#turn) this.#text = JSON.stringify(event.data ?? null);
      this.#turn = event.turn ?? null;
    }
    return this.#text;
  }
}

/** The answer of a run's events (or its text so far): the rule of {@link AnswerAccumulator} over a list. */
export function answerText(events: Iterable<AnswerEventLike>): string {
  const acc = new AnswerAccumulator();
  for (const e of events) acc.push(e);
  return acc.text;
}
