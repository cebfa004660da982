import { z } from "zod";
import { describeIssues } from "../errors.ts";
import { schemaProblems, type JsonSchema } from "../tools/json-schema.ts";

/** The pattern of every wire-safe name (tools, extensions, agents, plugins). */
export const NAME_PATTERN = "^[A-Za-z0-9_-]{1,64}$";
const NAME = new RegExp(NAME_PATTERN);

/** A wire-safe name; the message says the pattern. */
export const wireSafeName = (error = `must match ${NAME_PATTERN}`) => z.string({ error }).regex(NAME, { error });

/** Any function (a handler, factory or method), kept as given. */
export const fn = (error = "must be a function") =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", { error });

const isObjectRoot = (v: unknown): v is JsonSchema =>
  typeof v === "object" && v !== null && !Array.isArray(v) && (v as JsonSchema).type === "object";

/**
 * A JSON Schema object with root `type: "object"` that ajv meta-validates and compiles
 * (draft 2020-12); kept as given, not copied. A schema that does not compile is a
 * `custom` issue tagged `params.rule = "schema-compiles"`, `invalid` saying what it is not.
 */
export const objectJsonSchema = (where: string, invalid = "is not a valid JSON Schema") =>
  compiledJsonSchema(
    z.custom<JsonSchema>(isObjectRoot, { error: 'must be a JSON Schema with root type "object"' }),
    where,
    invalid,
  );

/** Any JSON Schema that compiles (see {@link objectJsonSchema}). */
export const anyJsonSchema = (where: string, invalid = "is not a valid JSON Schema") =>
  compiledJsonSchema(
    z.custom<JsonSchema>(() => true),
    where,
    invalid,
  );

function compiledJsonSchema(schema: z.ZodType<JsonSchema>, where: string, invalid: string) {
  return schema.superRefine((value, ctx) => {
    const problems = schemaProblems(value, where);
    if (problems.length)
      ctx.addIssue({
        code: "custom",
        message: `${invalid}: ${describeIssues(problems)}`,
        params: { rule: "schema-compiles" },
      });
  });
}

/** The longest wait a Node timer can hold (2^31 - 1 ms); a longer one would fire at once. */
export const MAX_TIMER_SECONDS = 2_147_483;
