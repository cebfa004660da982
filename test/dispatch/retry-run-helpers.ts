import { z } from "zod";
import type { App } from "../../src/app.ts";
import { ToolError, type ErrorKind } from "../../src/errors.ts";
import { as, type TestRuntime } from "../helpers/runtime.ts";

/** The shared setup of the retry-through-dispatch tests (retry-runs.test.ts, retry-runs-unretried.test.ts). */

export const FAST = { initialSeconds: 0.01, multiplier: 2, capSeconds: 1 };

/** Helpers over the current test's runtime and app, read through `rtOf` and `appOf` at each call. */
export function retryRunHelpers(rtOf: () => TestRuntime, appOf: () => App) {
  const run = (tool: string, input: Record<string, unknown> = {}) =>
    rtOf().dispatcher.run({ tool, input, caller: as("USER"), door: "runtime" });

  /** Registers a tool that fails with `kinds[n-1]` on attempt n and succeeds after them. */
  function flaky(name: string, kinds: ErrorKind[], retry?: Parameters<App["retryPolicy"]>[1]) {
    const calls: number[] = [];
    appOf().tool(
      { name, description: "Fails a few times, then succeeds.", input: z.object({}), ...(retry ? { retry } : {}) },
      (_i, ctx) => {
        calls.push(ctx.attempt);
        const kind = kinds[ctx.attempt - 1];
        if (kind) throw new ToolError(`attempt ${ctx.attempt}: ${kind}`, { kind });
        return { attempt: ctx.attempt };
      },
    );
    return calls;
  }

  async function eventsOf(runId: string) {
    return rtOf().runs.events({ runId }, 0);
  }

  return { run, flaky, eventsOf };
}
