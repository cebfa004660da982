import type { App } from "../../app.ts";
import { ToolError } from "../../errors.ts";

/** `timeout` (WRAPPER): fails a call that takes longer than `seconds` with TIMEOUT. */
export function registerTimeout(app: App): void {
  app.extension({
    name: "timeout",
    kind: "WRAPPER",
    description: "Fail a call that takes longer than the given seconds with TIMEOUT.",
    configSchema: {
      type: "object",
      additionalProperties: false,
      required: ["seconds"],
      properties: { seconds: { type: "number", exclusiveMinimum: 0, maximum: 86400 } },
    },
    create: (tool, config) => {
      const seconds = config.seconds as number;
      return {
        ...tool,
        timeoutSeconds: Math.min(tool.timeoutSeconds, seconds),
        run: (input, ctx) => {
          // The tool's signal aborts with the caller's or with this timeout, whichever first.
          const expiry = new AbortController();
          const signal = AbortSignal.any([ctx.signal, expiry.signal]);
          const expired = Promise.withResolvers<never>();
          const timer = setTimeout(() => {
            const e = new ToolError(`"${tool.name}" took longer than ${seconds}s`, { kind: "TIMEOUT" });
            expiry.abort(e);
            expired.reject(e);
          }, seconds * 1000);
          return Promise.race([tool.run(input, { ...ctx, signal }), expired.promise]).finally(() =>
            clearTimeout(timer),
          );
        },
      };
    },
  });
}
