import type { App } from "../../app.ts";
import { ToolError } from "../../errors.ts";
import { toolResult } from "../../tools/result.ts";

/**
 * `batch` (TRANSFORMER): runs the tool over a list of inputs with bounded concurrency.
 * The branch takes `{ items: [input, …] }` and returns one result per item, in order;
 * a partial failure is reported per item (and the run fails only if every item failed).
 */
export function registerBatch(app: App): void {
  app.extension({
    name: "batch",
    kind: "TRANSFORMER",
    description:
      "Run the tool over a list of inputs with bounded concurrency; per-item results, partial failures reported.",
    configSchema: {
      type: "object",
      additionalProperties: false,
      properties: {
        concurrency: { type: "integer", minimum: 1, maximum: 64, default: 4 },
        maxItems: { type: "integer", minimum: 1, maximum: 10000, default: 100 },
      },
    },
    create: (tool, config) => {
      const concurrency = (config.concurrency as number | undefined) ?? 4;
      const maxItems = (config.maxItems as number | undefined) ?? 100;
      return {
        ...tool,
        description: `${tool.description} (batched: pass { items: [...] })`,
        inputSchema: {
          type: "object",
          additionalProperties: false,
          required: ["items"],
          properties: { items: { type: "array", minItems: 1, maxItems, items: tool.inputSchema } },
        },
        run: async (input, ctx) => {
          const items = input.items as Record<string, unknown>[];
          const results: ({ ok: true; value: unknown } | { ok: false; errorKind: string; errorMessage: string })[] =
            new Array(items.length);
          let cursor = 0;
          const worker = async () => {
            while (cursor < items.length && !ctx.signal.aborted) {
              const i = cursor++;
              try {
                results[i] = { ok: true, value: await tool.run(items[i], ctx) };
              } catch (e) {
                const err = ToolError.fromUnknown(e);
                results[i] = { ok: false, errorKind: err.kind, errorMessage: err.message };
              }
            }
          };
          await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
          const failed = results.filter((r) => !r.ok).length;
          if (failed === items.length)
            throw new ToolError(
              `all ${failed} items failed (first: ${(results[0] as { errorMessage: string }).errorMessage})`,
              { kind: "UPSTREAM", retryable: false },
            );
          return toolResult({ data: { results, succeeded: items.length - failed, failed }, details: { concurrency } });
        },
      };
    },
  });
}
