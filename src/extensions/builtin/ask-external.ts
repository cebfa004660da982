import type { App } from "../../app.ts";
import { park } from "../../interactions/park.ts";
import type { JsonSchema } from "../../tools/json-schema.ts";

/**
 * `ask_external` (TRANSFORMER, pauses): turns a tool that takes a callback URL into an
 * external interaction. The branch's input drops the callback field; a call opens an
 * interaction with an unguessable callback URL served by tai42, calls the tool with it,
 * and parks. A POST to that URL (or `answerInteraction`) resumes the run, whose output
 * is the posted payload.
 */
export function registerAskExternal(app: App): void {
  app.extension({
    name: "ask_external",
    kind: "TRANSFORMER",
    pauses: true,
    description:
      "Turn a callback-URL tool into an external interaction: call it with a tai42 callback URL, park, resume with the POSTed payload.",
    configSchema: {
      type: "object",
      additionalProperties: false,
      properties: {
        callbackField: {
          type: "string",
          minLength: 1,
          default: "callback_url",
          description: "The tool's input property that receives the callback URL.",
        },
        question: { type: "string", description: "What the interaction asks (shown in the interactions list)." },
        expiresInSeconds: {
          type: "number",
          exclusiveMinimum: 0,
          description: "Fail the run with TIMEOUT if no answer arrives in time.",
        },
        answerFormat: {
          $ref: "https://json-schema.org/draft/2020-12/schema",
          description: "JSON Schema the posted payload must match.",
        },
      },
    },
    create: (tool, config) => {
      const field = (config.callbackField as string | undefined) ?? "callback_url";
      const props = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
      if (!Object.hasOwn(props, field))
        throw new Error(`the tool has no "${field}" input property to receive the callback URL (set callbackField)`);
      const { [field]: _dropped, ...rest } = props;
      const required = Array.isArray(tool.inputSchema.required)
        ? (tool.inputSchema.required as string[]).filter((k) => k !== field)
        : undefined;
      const inputSchema: JsonSchema = { ...tool.inputSchema, properties: rest, ...(required ? { required } : {}) };
      return {
        ...tool,
        description: `${tool.description} (answered externally through a callback)`,
        inputSchema,
        run: async (input, ctx) => {
          const interaction = await ctx.openInteraction({
            question: (config.question as string | undefined) ?? `Waiting for an external answer to "${tool.name}"`,
            to: "user",
            callback: true,
            answerFormat: config.answerFormat as JsonSchema | undefined,
            expiresInSeconds: config.expiresInSeconds as number | undefined,
          });
          await tool.run({ ...input, [field]: interaction.callbackUrl }, ctx);
          return park({ interactionIds: [interaction.id], state: { tool: tool.name } });
        },
        resume: async (_state, answers) => Object.values(answers)[0],
      };
    },
  });
}
