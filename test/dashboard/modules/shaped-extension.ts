/**
 * An extension with a setting that is itself a JSON Schema (seed 000-44): `schema` is declared as a `$ref` to the
 * draft 2020-12 meta-schema, so the dashboard draws it with the schema editor and the server checks a value against
 * the meta-schema (ajv ships it) before any manifest naming it is stored.
 */
import { App } from "tai42";

export const META_SCHEMA = "https://json-schema.org/draft/2020-12/schema";

/** `shaped`, a WRAPPER whose branch runs the tool as it is: what matters here is its setting. */
export function shapedApp(): App {
  const app = new App();
  app.extension({
    name: "shaped",
    kind: "WRAPPER",
    description: "Describe the branch's results with a JSON Schema of the author's.",
    configSchema: {
      type: "object",
      additionalProperties: false,
      required: ["schema"],
      properties: {
        schema: { $ref: META_SCHEMA, description: "A JSON Schema (draft 2020-12) the results are described by." },
        note: { type: "string", description: "Said beside the schema." },
        errors: { $ref: META_SCHEMA, description: "An optional JSON Schema of the errors it may answer." },
      },
    },
    create: (tool, config) => ({
      ...tool,
      description: `${tool.description} Results: ${JSON.stringify(config.schema)}`,
    }),
  });
  return app;
}
