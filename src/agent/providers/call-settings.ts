import { z } from "zod";

/** Per-run tuning the AI SDK applies to each model call (`llmKwargs`). */
export interface CallSettings {
  temperature?: number;
  maxOutputTokens?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stopSequences?: string[];
  /** The SDK's own retries of a failed model call (429, 5xx). @default 2 */
  maxRetries?: number;
  /** Provider-specific options, passed through (e.g. `{ openai: { reasoningEffort } }`). */
  providerOptions?: Record<string, Record<string, unknown>>;
}

const between = (min: number, max: number) =>
  z
    .number({ error: `must be a number from ${min} to ${max}` })
    .min(min, { error: `must be a number from ${min} to ${max}` })
    .max(max, { error: `must be a number from ${min} to ${max}` });
const integer = (min: number, max: number) => {
  const error = `must be an integer from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

const NUMERIC = {
  temperature: between(0, 2),
  maxOutputTokens: integer(1, 1_000_000),
  topP: between(0, 1),
  topK: integer(1, 1000),
  seed: integer(-(2 ** 31), 2 ** 31 - 1),
  presencePenalty: between(-2, 2),
  frequencyPenalty: between(-2, 2),
  maxRetries: integer(0, 10),
};
const KNOWN = ["model", ...Object.keys(NUMERIC), "stopSequences", "providerOptions"];

/** A run's `llmKwargs`: the model and the {@link CallSettings}, each field checked. */
export const LlmKwargsSchema = z.strictObject(
  {
    model: z
      .string({ error: "must be a non-empty string" })
      .refine((m) => m.trim() !== "", { error: "must be a non-empty string" })
      .optional(),
    ...Object.fromEntries(Object.entries(NUMERIC).map(([k, schema]) => [k, schema.optional()])),
    stopSequences: z
      .array(z.string({ error: "must be a list of strings" }), { error: "must be a list of strings" })
      .optional(),
    providerOptions: z
      .record(z.string(), z.record(z.string(), z.unknown()), { error: "must be an object keyed by provider" })
      .optional(),
  } as { model: z.ZodOptional<z.ZodString> } & Record<string, z.ZodType>,
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `is not an llmKwargs setting (${KNOWN.join(", ")})` : "must be an object",
  },
);
