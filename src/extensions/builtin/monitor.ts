import type { App } from "../../app.ts";
import { isRedacted } from "../../auth/tiers.ts";
import { ToolError } from "../../errors.ts";
import { isPark } from "../../interactions/park.ts";
import type { SpanStore } from "./spans.ts";

/**
 * `monitor` (WRAPPER): traces each standalone call of the branch as one live span —
 * persisted and published on `spans` while it runs, closed with its status and duration.
 * The base tool's own runs are not traced. Inputs of SECRET tools are never recorded.
 */
export function registerMonitor(app: App, spans: SpanStore): void {
  app.extension({
    name: "monitor",
    kind: "WRAPPER",
    description:
      "Trace each call as one live span: persisted, published on the spans subscription while it runs, closed with status and duration.",
    create: (tool) => ({
      ...tool,
      run: async (input, ctx) => {
        const span = await spans.open(tool.name, ctx.runId, {
          attempt: ctx.attempt,
          caller: ctx.caller.role,
          ...(isRedacted(tool.tier) ? {} : { input }),
        });
        try {
          const value = await tool.run(input, ctx);
          await spans.close(span, isPark(value) ? "PARKED" : "SUCCEEDED", {});
          return value;
        } catch (e) {
          const err = ToolError.fromUnknown(e);
          await spans.close(span, err.kind === "CANCELLED" ? "CANCELLED" : "FAILED", {
            errorKind: err.kind,
            errorMessage: err.message,
          });
          throw e;
        }
      },
    }),
  });
}
