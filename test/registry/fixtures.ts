import { z } from "zod";
import { Agent } from "../../src/agent/agent.ts";
import { defineExtension } from "../../src/extensions/extension.ts";
import { defineTool } from "../../src/tools/define-tool.ts";

/** A read tool `name` from module `module-<name>` that answers its `q`. */
export const tool = (name: string, extra: Record<string, unknown> = {}) =>
  defineTool(
    {
      name,
      description: `The ${name} tool.`,
      parameters: { type: "object", properties: { q: { type: "string" } } },
      execute: ({ q }) => q,
      ...extra,
    },
    undefined,
    `module-${name}`,
  );

/** A pass-through WRAPPER extension `name` from module `module-<name>`, bringing `tools`. */
export const extension = (name: string, tools: unknown[] = []) =>
  defineExtension(
    { name, kind: "WRAPPER", description: `The ${name} extension.`, create: (t) => t, tools: tools as never },
    `module-${name}`,
  );

/** An agent registered as the tool "helper". */
export class Helper extends Agent {
  static override toolName = "helper";
  static override toolDescription = "Helps.";
  static override ToolInput = z.object({ task: z.string() });
  override async run() {
    return "helped";
  }
}
