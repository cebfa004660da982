import type { StreamEvent } from "../events.ts";
import type { SecretScope } from "../../secrets/secrets.ts";
import { scrubAgentEntry } from "../../secrets/value-fields.ts";

/**
 * Values one run learned from secret-tier tools (their arguments and results), in a
 * scope of the runtime's secrets. Everything the run stores or publishes is scrubbed of
 * them and of the runtime's secrets, so a model that repeats a secret result in its
 * answer streams "[redacted]" instead. Scoped to the run: nothing runtime-wide grows.
 */
export class RunSecrets {
  constructor(private readonly scope: SecretScope) {}

  /** Remembers every string of at least 4 characters inside `value`. */
  learn(value: unknown): void {
    this.scope.learn(value);
  }

  /** A deep copy of `value` with this run's and the runtime's known secrets replaced. */
  scrub<T>(value: T): T {
    return this.scope.scrub(value);
  }

  /**
   * Scrubs the events of one loop, whose own agent is `own` (null: the run's). A model
   * streams text in arbitrary chunks, so a secret it repeats may be split across deltas
   * that are each harmless alone: of the own agent's deltas, the last (longest secret − 1)
   * characters are always held back and sent with the next delta of the same member and
   * turn, or alone before any other event of that agent, so the tail never crosses into
   * another turn (docs/agent-stream.md §2.4). The lag is constant: it never depends on
   * whether the text could start a secret, so how the deltas are cut tells a caller nothing
   * about any secret's characters. Other agents' events (a sub-agent's, scrubbed by its
   * own loop) pass through, scrubbed whole; a terminal flushes first.
   */
  async *scrubStream(events: AsyncIterable<StreamEvent>, own: string | null = null): AsyncGenerator<StreamEvent> {
    let held: Delta | null = null;
    const flush = function* (): Generator<StreamEvent> {
      if (held?.text) yield held;
      held = null;
    };
    for await (const e of events) {
      const agent = e.agent ?? null;
      if ((e.type !== "message_delta" && e.type !== "intermediate_delta") || agent !== own) {
        if (agent === own || e.final) yield* flush();
        yield scrubAgentEntry(this, e);
        continue;
      }
      if (held && (held.type !== e.type || held.turn !== e.turn)) yield* flush();
      const text: string = this.scrub((held?.text ?? "") + e.text);
      const keep = Math.min(text.length, Math.max(0, this.scope.longest() - 1));
      held = keep ? { ...e, agent, text: text.slice(text.length - keep) } : null;
      if (keep < text.length) yield { ...e, agent, text: text.slice(0, text.length - keep) };
    }
    yield* flush();
  }
}

type Delta = Extract<StreamEvent, { type: "message_delta" | "intermediate_delta" }>;
