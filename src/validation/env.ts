import { z } from "zod";

/**
 * Schemas of environment variables (README's configuration table, docs/deploy.md): each
 * takes the raw string, counts "" as unset, and on a bad value says what it must be and
 * what it got, so a refusal reads `VARIABLE: must be … (got "…")`.
 */
type Raw = string | undefined;
const isUnset = (raw: Raw): raw is undefined | "" => raw === undefined || raw === "";

/** A variable read by `read`, or `fallback` when unset; `read` returns undefined to refuse with `message(raw)`. */
function envVariable<T, F>(fallback: F, read: (raw: string) => T | undefined, message: (raw: string) => string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T | F => {
      if (isUnset(raw)) return fallback;
      const value = read(raw);
      if (value !== undefined) return value;
      ctx.addIssue({ code: "custom", message: message(raw) });
      return z.NEVER;
    });
}

/** A number checked by `schema` (zod refuses NaN and infinities). */
export const envNumber = <F extends number | undefined>(
  fallback: F,
  schema: z.ZodNumber,
  message: (raw: string) => string,
) => envVariable(fallback, (raw) => schema.safeParse(Number(raw)).data, message);

/** An integer from `min` to `max`. */
export const envInteger = (fallback: number, min: number, max: number) =>
  envNumber(
    fallback,
    z.number().int().min(min).max(max),
    (raw) => `must be an integer from ${min} to ${max} (got "${raw}")`,
  );

/** A number of seconds from `min` to `max`; fractions allowed. */
export const envSeconds = <F extends number | undefined>(fallback: F, min: number, max: number) =>
  envNumber(
    fallback,
    z.number().min(min).max(max),
    (raw) => `must be a number of seconds from ${min} to ${max} (got "${raw}")`,
  );

const TRUE = ["1", "true", "yes", "on"];
const FALSE = ["0", "false", "no", "off"];
/** A boolean spelled 1/0, true/false, yes/no or on/off (any case). */
export const envBoolean = (fallback: boolean) =>
  envVariable(
    fallback,
    (raw) => (TRUE.includes(raw.toLowerCase()) ? true : FALSE.includes(raw.toLowerCase()) ? false : undefined),
    (raw) => `must be 1/0, true/false, yes/no or on/off (got "${raw}")`,
  );

/** One of `values`, compared after `normalise` (e.g. case folding). */
export const envChoice = <V extends string, F extends V | undefined>(
  values: readonly V[],
  fallback: F,
  normalise: (raw: string) => string,
  message: (raw: string) => string,
) => envVariable(fallback, (raw) => z.enum(values as [V, ...V[]]).safeParse(normalise(raw)).data, message);

/** Text checked by `schema` (a pattern, a length). */
export const envText = <F extends string | undefined>(
  fallback: F,
  schema: z.ZodType<string> = z.string(),
  message: (raw: string) => string = () => "is invalid",
) => envVariable(fallback, (raw) => schema.safeParse(raw).data, message);

/** A comma-separated list; blanks dropped. */
export const envList = () =>
  z
    .string()
    .optional()
    .transform((raw) =>
      (raw ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
