import type { App } from "../../app.ts";
import { ToolError } from "../../errors.ts";

/** `timeout` (WRAPPER): fails a call that takes longer than `seconds` with TIMEOUT. */
export function registerTimeout(app: App): void {
  app.extension({
    name: "timeout",
    kind: "WRAPPER",
    description: "Fail a call that takes longer than the given seconds with TIMEOUT.",
    configSchema: { type: "object", additionalProperties: false, required: ["seconds"], properties: { seconds: { type: "number", exclusiveMinimum: 0, maximum: 86400 } } },
    create: (tool, config) => {
      const seconds = config.seconds as number;
      return {
        ...tool,
        timeoutSeconds: Math.min(tool.timeoutSeconds, seconds),
        run: (input, ctx) => {
          const inner = new AbortController();
          const onOuter = () => inner.abort(ctx.signal.reason);
          ctx.signal.addEventListener("abort", onOuter, { once: true });
          let timer: ReturnType<typeof setTimeout> | undefined;
          const expired = new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              const e = new ToolError(`"${tool.name}" took longer than ${seconds}s`, { kind: "TIMEOUT" });
              inner.abort(e);
              reject(e);
            }, seconds * 1000);
          });
          return Promise.race([tool.run(input, { ...ctx, signal: inner.signal }), expired]).finally(() => {
            clearTimeout(timer);
            ctx.signal.removeEventListener("abort", onOuter);
          });
        },
      };
    },
  });
}
