import type { App } from "../../app.ts";
import { REDACTED } from "../../auth/tiers.ts";
import { ToolError } from "../../errors.ts";
import { toolResult } from "../../tools/result.ts";

/**
 * `chain` (WRAPPER): pipes the tool's output into the next tools, in order. Each next
 * tool runs through the chokepoint as the same caller (tiers enforced: a USER's chain
 * into a fenced tool fails PERMISSION_DENIED). An output object becomes the next input;
 * text output is passed as `{ [inputKey]: text }`.
 */
export function registerChain(app: App): void {
  app.extension({
    name: "chain",
    kind: "WRAPPER",
    description:
      "Pipe the tool's output into the next tools in order, each run through the chokepoint as the same caller.",
    configSchema: {
      type: "object",
      additionalProperties: false,
      required: ["next"],
      properties: {
        next: {
          type: "array",
          minItems: 1,
          items: { type: "string", minLength: 1 },
          description: "Tools to run after this one, in order.",
        },
        inputKey: {
          type: "string",
          minLength: 1,
          default: "text",
          description: "The input property that receives a text output.",
        },
      },
    },
    create: (tool, config) => {
      const next = config.next as string[];
      const inputKey = (config.inputKey as string | undefined) ?? "text";
      return {
        ...tool,
        description: `${tool.description} Then: ${next.join(" → ")}.`,
        run: async (input, ctx) => {
          let value: unknown = await tool.run(input, ctx);
          const steps: { tool: string; runId: string }[] = [];
          for (const [i, name] of next.entries()) {
            const last = i === next.length - 1;
            const nextInput = toInput(value, inputKey);
            const run = await ctx.runTool(name, nextInput);
            steps.push({ tool: name, runId: run.id });
            if (run.status !== "SUCCEEDED")
              throw new ToolError(
                `chain step "${name}" ${run.status.toLowerCase()}: ${run.errorKind ?? ""} ${run.errorMessage ?? ""}`.trim(),
                {
                  kind: run.errorKind ?? "INTERNAL",
                  retryable: false,
                },
              );
            // A secret-tier step's output is never persisted or published: it may only be
            // the result of a secret-tier branch (stored redacted), never feed a next step
            // (whose input is stored) or the result of a lower-tier branch.
            if (run.input === REDACTED && (tool.tier !== "secret" || !last))
              throw new ToolError(
                `chain step "${name}" is a secret-tier tool: its output may only end a chain on a secret-tier tool, never be stored as ${last ? `the result of the ${tool.tier}-tier "${tool.name}" chain` : "the next step's input"}`,
                { kind: "PERMISSION_DENIED", retryable: false },
              );
            value = run.data ?? run.content.map((b) => b.text ?? "").join("");
          }
          return toolResult({ data: value, details: { steps } });
        },
      };
    },
  });
}

function toInput(value: unknown, key: string): Record<string, unknown> {
  if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value === "string") return { [key]: value };
  return { [key]: JSON.stringify(value) };
}
