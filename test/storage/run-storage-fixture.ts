import { z } from "zod";
import { App } from "../../src/app.ts";
import { newRun, type RunRecord } from "../../src/dispatch/run-record.ts";
import { ToolError } from "../../src/errors.ts";

/** The shared setup of the run-storage tests (runs.test.ts, runs-events.test.ts). */

/** A RUNNING run record as the chokepoint would write it. */
export function record(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    ...newRun({ tool: "stored", input: {}, door: "runtime", callerRole: "USER", callerKey: null }),
    ...overrides,
  };
}

/** An app with the two tools the run-storage tests call: `wobbly` (retried) and `echo_json`. */
export function runStorageApp(): App {
  const app = new App();
  app.tool(
    {
      name: "wobbly",
      description: "Unavailable for the first `failures` attempts, then answers.",
      input: z.object({ failures: z.number().int(), payload: z.unknown().optional() }),
      retry: {
        maxAttempts: 3,
        idempotent: true,
        retryable: true,
        backoff: { initialSeconds: 0.01, multiplier: 2, capSeconds: 0.05 },
      },
    },
    ({ failures, payload }, ctx) => {
      if (ctx.attempt <= failures)
        throw new ToolError(`unavailable on attempt ${ctx.attempt}`, { kind: "UNAVAILABLE" });
      return { attempt: ctx.attempt, payload };
    },
  );
  app.tool(
    { name: "echo_json", description: "Returns its input.", input: z.object({ value: z.unknown() }) },
    ({ value }) => ({ value }),
  );
  return app;
}
