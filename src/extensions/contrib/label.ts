import type { App } from "../../app.ts";
import { isToolResultInit, toolResult } from "../../tools/result.ts";
import { isPark } from "../../interactions/park.ts";

/** `label` (WRAPPER): gives the branch a display label and tags each result's details with it. */
export function registerLabel(app: App): void {
  app.extension({
    name: "label",
    kind: "WRAPPER",
    description: "Give the branch a display label and tag each result's details with it.",
    configSchema: {
      type: "object",
      additionalProperties: false,
      required: ["label"],
      properties: { label: { type: "string", minLength: 1, maxLength: 100 } },
    },
    create: (tool, config) => ({
      ...tool,
      label: config.label as string,
      run: async (input, ctx) => {
        const value = await tool.run(input, ctx);
        if (isPark(value)) return value;
        if (isToolResultInit(value))
          return toolResult({ ...value, details: { ...((value.details as object) ?? {}), label: config.label } });
        return toolResult({ data: value, details: { label: config.label } });
      },
    }),
  });
}
