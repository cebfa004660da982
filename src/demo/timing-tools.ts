import { z } from "zod";
import type { App } from "../app.ts";
import { ToolError } from "../errors.ts";
import { sleep } from "../dispatch/retry-loop.ts";

/** The demo tools that take time or fail: a sleep that stops when cancelled, a flaky service that is retried. */
export function registerTimingTools(app: App): void {
  app.tool(
    {
      name: "sleep",
      label: "Sleep",
      description: "Wait for the given number of seconds, then report how long it waited. Stops early when cancelled.",
      input: z.object({ seconds: z.number().min(0).max(300) }),
      timeoutSeconds: 300,
    },
    async ({ seconds }, ctx) => {
      await sleep(seconds * 1000, ctx.signal);
      return { sleptSeconds: seconds };
    },
  );

  app.tool(
    {
      name: "flaky",
      label: "Flaky service",
      description:
        "Simulate a service that is unavailable for the first `failures` attempts of a run, then answers. Retries up to 4 attempts.",
      input: z.object({ failures: z.number().int().min(0).max(10) }),
      retry: {
        maxAttempts: 4,
        idempotent: true,
        retryable: true,
        backoff: { initialSeconds: 0.05, multiplier: 2, capSeconds: 1 },
      },
    },
    ({ failures }, ctx) => {
      if (ctx.attempt <= failures)
        throw new ToolError(`service unavailable (attempt ${ctx.attempt})`, { kind: "UNAVAILABLE" });
      return { answeredOnAttempt: ctx.attempt };
    },
  );
}
