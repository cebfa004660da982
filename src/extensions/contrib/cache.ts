import { createHash } from "node:crypto";
import type { App } from "../../app.ts";
import { isPark } from "../../interactions/park.ts";
import { isToolResultInit, toolResult } from "../../tools/result.ts";

/** JSON with object keys sorted: the same input always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/**
 * `cache` (WRAPPER): memoises results by tool and canonical input for `ttlSeconds`, in
 * the database (shared by every instance). Refused on write-tier tools unless
 * `force: true`: replaying a write's result instead of doing the write is rarely wanted.
 */
export function registerCache(app: App): void {
  app.extension({
    name: "cache",
    kind: "WRAPPER",
    description:
      "Memoise results by canonical input with a TTL, persisted; refused on write-tier tools unless force is true.",
    configSchema: {
      type: "object",
      additionalProperties: false,
      properties: {
        ttlSeconds: { type: "number", exclusiveMinimum: 0, maximum: 31536000, default: 300 },
        force: { type: "boolean", default: false, description: "Allow caching a write-tier tool." },
      },
    },
    create: (tool, config) => {
      if (tool.tier === "write" && config.force !== true)
        throw new Error(
          `"${tool.name}" is a write-tier tool; caching it replays results instead of writing (set force: true to allow)`,
        );
      if (tool.tier === "secret")
        throw new Error(`"${tool.name}" is a secret-tier tool; its results may never be stored`);
      const ttl = (config.ttlSeconds as number | undefined) ?? 300;
      // What the layer below is (a chain's next tools, a label, a batch schema…): two
      // branches of one tool never answer with each other's results.
      const layer = canonicalJson({
        description: tool.description,
        label: tool.label ?? null,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema ?? null,
      });
      return {
        ...tool,
        run: async (input, ctx) => {
          // The caller's role is part of the key: what the layer below ran as an ADMIN (a
          // chain into a fenced tool, say) is never replayed to a role that may not run it.
          const key = `cache:${tool.name}:${createHash("sha256")
            .update(canonicalJson({ layer, role: ctx.caller.role, input }))
            .digest("hex")}`;
          const hit = (await ctx.store.get(key)) as { value: unknown; result: boolean } | undefined;
          if (hit)
            return hit.result
              ? toolResult({
                  ...(hit.value as object),
                  details: { ...((hit.value as { details?: object }).details ?? {}), cache: "hit" },
                })
              : hit.value;
          const value = await tool.run(input, ctx);
          if (!isPark(value))
            await ctx.store.set(
              key,
              isToolResultInit(value) ? { value: { ...value }, result: true } : { value, result: false },
              ttl,
              tool.name,
            );
          return value;
        },
      };
    },
  });
}
