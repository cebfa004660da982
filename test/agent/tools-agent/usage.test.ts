import { describe, expect, it } from "vitest";
import type { LanguageModelUsage } from "ai";
import { UsageTotals } from "../../../src/agent/tools-agent/usage.ts";

const usage = (u: Partial<LanguageModelUsage>) => u as LanguageModelUsage;

describe("UsageTotals: the token totals of a run's model calls", () => {
  it("should report nulls and the run's model before any call", () => {
    expect(new UsageTotals("m-1").event()).toEqual({
      type: "run_usage",
      final: false,
      inputTokens: null,
      outputTokens: null,
      totalTokens: null,
      model: "m-1",
    });
  });

  it("should sum every call's input, output and total tokens and count the calls", () => {
    const totals = new UsageTotals("m-1");
    totals.add(usage({ inputTokens: 10, outputTokens: 5, totalTokens: 15 }));
    totals.add(usage({ inputTokens: 7, outputTokens: 3, totalTokens: 10 }));
    expect(totals.calls).toBe(2);
    expect(totals.event()).toMatchObject({ inputTokens: 17, outputTokens: 8, totalTokens: 25 });
  });

  it("should derive a call's total from its input and output when the provider gives none", () => {
    const totals = new UsageTotals(null);
    totals.add(usage({ inputTokens: 4, outputTokens: 6 }));
    expect(totals.event().totalTokens).toBe(10);
  });

  it("should leave a count null while no call reported it, and not count an unreported one as zero", () => {
    const totals = new UsageTotals(null);
    totals.add(usage({ outputTokens: 2 }));
    totals.add(undefined);
    expect(totals.event()).toMatchObject({ inputTokens: null, outputTokens: 2, totalTokens: null });
    expect(totals.calls).toBe(2);
  });

  it("should take the model a later call names (a sub-agent's), keeping the last one", () => {
    const totals = new UsageTotals("parent");
    totals.add(usage({ inputTokens: 1 }), "child");
    expect(totals.event().model).toBe("child");
    totals.add(usage({ inputTokens: 1 }));
    expect(totals.event().model).toBe("child");
  });
});
