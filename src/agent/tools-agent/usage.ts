import type { LanguageModelUsage } from "ai";
import type { RunUsage } from "../events.ts";

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
