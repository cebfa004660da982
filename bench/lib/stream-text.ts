/**
 * The streamed text of the agent-streaming scenario: `deltas` words, split exactly as the
 * scripted model splits text into deltas (one word with its surrounding whitespace each),
 * so the tai42 run and the bare baseline send the same payloads.
 */
export function streamText(deltas: number): { text: string; chunks: string[] } {
  const text = Array.from({ length: deltas }, (_, i) => `tok${i}`).join(" ");
  return { text, chunks: text.match(/\s*\S+\s*/g) ?? [] };
}

/** A promise released on demand, counting who waits on it. */
export class Gate {
  private release: (() => void) | null = null;
  private opened: Promise<void> = Promise.resolve();
  /** Waiters on the current gate. */
  waiting = 0;

  /** Closes the gate: later `pass()` calls wait until `open()`. */
  arm(): void {
    this.waiting = 0;
    ({ promise: this.opened, resolve: this.release } = Promise.withResolvers<void>());
  }

  async pass(): Promise<void> {
    if (!this.release) return;
    this.waiting++;
    await this.opened;
  }

  /** Opens the gate; returns the moment it opened (ms, see `nowMs`). */
  open(at: number): number {
    this.release?.();
    this.release = null;
    return at;
  }
}
