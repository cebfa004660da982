import type { LanguageModelUsage } from "ai";
import type { RunUsage } from "../events.ts";

/** Token totals as a checkpoint stores them. */
export interface UsageSnapshot {
  model: string | null;
  input: number | null;
  output: number | null;
  total: number | null;
  calls: number;
}

/** Token totals of a run's model calls, sub-agents included. */
export class UsageTotals {
  private input: number | null = null;
  private output: number | null = null;
  private total: number | null = null;
  /** Model calls made so far. */
  calls = 0;

  constructor(public model: string | null) {}

  add(usage: LanguageModelUsage | undefined, model?: string): void {
    this.calls++;
    if (model) this.model = model;
    const plus = (a: number | null, b: number | undefined) => (b === undefined || b === null ? a : (a ?? 0) + b);
    this.input = plus(this.input, usage?.inputTokens);
    this.output = plus(this.output, usage?.outputTokens);
    this.total = plus(
      this.total,
      usage?.totalTokens ??
        (usage?.inputTokens !== undefined && usage?.outputTokens !== undefined
          ? usage.inputTokens + usage.outputTokens
          : undefined),
    );
  }

  /** What a continuation restores (docs/agent-stream.md §4.3). */
  snapshot(): UsageSnapshot {
    return { model: this.model, input: this.input, output: this.output, total: this.total, calls: this.calls };
  }

  restore(s: UsageSnapshot): void {
    this.model = s.model ?? this.model;
    this.input = s.input;
    this.output = s.output;
    this.total = s.total;
    this.calls = s.calls;
  }

  event(): RunUsage {
    return {
      type: "run_usage",
      final: false,
      inputTokens: this.input,
      outputTokens: this.output,
      totalTokens: this.total,
      model: this.model,
    };
  }
}
