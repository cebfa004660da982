import type { OutputUnit } from "@cfworker/json-schema";

/** What ajv says of a failed keyword: its name, its parameters, its message (ajv's own English). */
export interface KeywordError {
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

/**
 * cfworker's output units that only say "a part of the schema failed" (a property, an
 * item, a `$ref`, an `allOf` branch), each followed by the units saying how; ajv reports
 * only the latter.
 */
const SUMMARIES = new Set([
  "$ref",
  "$recursiveRef",
  "properties",
  "patternProperties",
  "prefixItems",
  "items",
  "additionalItems",
  "allOf",
  "dependentSchemas",
]);

const LIMITS: Record<string, [string, string]> = {
  minLength: ["fewer", "characters"],
  maxLength: ["more", "characters"],
  minItems: ["fewer", "items"],
  maxItems: ["more", "items"],
  minProperties: ["fewer", "properties"],
  maxProperties: ["more", "properties"],
};

const COMPARISONS: Record<string, string> = {
  minimum: ">=",
  maximum: "<=",
  exclusiveMinimum: ">",
  exclusiveMaximum: "<",
};

/**
 * The first quoted name in cfworker's message (`... property "name".`): JSON keys may hold any character but `"` ends
 * them.
 */
function quoted(unit: OutputUnit, n = 0): string {
  return [...unit.error.matchAll(/"([^"]*)"/g)][n]?.[1] ?? "";
}

/** A formatter's answer: ajv's parameters and message, and the keyword when ajv names another. */
interface Formatted {
  params: Record<string, unknown>;
  message: string;
  keyword?: string;
}

type Formatter = (unit: OutputUnit, value: unknown, parent: Record<string, unknown> | undefined) => Formatted | null;

const said = (params: Record<string, unknown>, message: string): Formatted => ({ params, message });

/** `contains`, `minContains` and `maxContains`: ajv reports all three as `contains` with the schema's range. */
const containsError: Formatter = (_unit, _value, parent) => {
  const min = (parent?.minContains as number | undefined) ?? 1;
  const max = parent?.maxContains as number | undefined;
  const range = max === undefined ? `at least ${min}` : `at least ${min} and no more than ${max}`;
  return {
    keyword: "contains",
    params: { minContains: min, ...(max === undefined ? {} : { maxContains: max }) },
    message: `must contain ${range} valid item(s)`,
  };
};

/** `dependentRequired` and `dependencies`: cfworker's unit for a dependent schema that failed is a summary. */
const dependencyError: Formatter = (unit) => {
  if (!/does not have "/.test(unit.error)) return null;
  const [property, missing] = [quoted(unit, 0), quoted(unit, 1)];
  return said(
    { property, missingProperty: missing, depsCount: 1, deps: missing },
    `must have property ${missing} when property ${property} is present`,
  );
};

/** One small formatter per ajv keyword the limits and comparisons above do not cover. */
const FORMATTERS: Record<string, Formatter> = {
  type: (_unit, value) => {
    const type = Array.isArray(value) ? value.join(",") : String(value);
    return said({ type }, `must be ${type}`);
  },
  required: (unit) => said({ missingProperty: quoted(unit) }, `must have required property '${quoted(unit)}'`),
  enum: (_unit, value) => said({ allowedValues: value }, "must be equal to one of the allowed values"),
  const: (_unit, value) => said({ allowedValue: value }, "must be equal to constant"),
  format: (_unit, value) => said({ format: value }, `must match format "${value}"`),
  pattern: (_unit, value) => said({ pattern: value }, `must match pattern "${value}"`),
  multipleOf: (_unit, value) => said({ multipleOf: value }, `must be multiple of ${value}`),
  uniqueItems: (unit) => {
    const [i, j] = (unit.error.match(/\d+/g) ?? []).map(Number);
    return said({ i, j }, `must NOT have duplicate items (items ## ${j} and ${i} are identical)`);
  },
  not: () => said({}, "must NOT be valid"),
  anyOf: () => said({}, "must match a schema in anyOf"),
  // ajv names the branches that passed when more than one did; cfworker counts them only.
  oneOf: (unit) =>
    said(/\(0 matches\)/.test(unit.error) ? { passingSchemas: null } : {}, "must match exactly one schema in oneOf"),
  if: (unit) => {
    const clause = quoted(unit);
    return said({ failingKeyword: clause }, `must match "${clause}" schema`);
  },
  contains: containsError,
  minContains: containsError,
  maxContains: containsError,
  dependentRequired: dependencyError,
  dependencies: dependencyError,
  propertyNames: (unit) => said({ propertyName: quoted(unit) }, "property name must be valid"),
  additionalProperties: (unit, value) =>
    value === false ? said({ additionalProperty: quoted(unit) }, "must NOT have additional properties") : null,
  unevaluatedProperties: (unit, value) =>
    value === false ? said({ unevaluatedProperty: quoted(unit) }, "must NOT have unevaluated properties") : null,
  unevaluatedItems: (_unit, value) => (value === false ? said({}, "must NOT have unevaluated items") : null),
  false: () => said({}, "boolean schema is false"),
};

/**
 * ajv's error for one of cfworker's output units, or null for a summary ajv does not
 * report. `value` is the keyword's value in the schema (`required`'s list, `minimum`'s
 * number, ...), `parent` the schema holding it.
 */
export function keywordError(
  unit: OutputUnit,
  value: unknown,
  parent: Record<string, unknown> | undefined,
): KeywordError | null {
  const k = unit.keyword;
  if (SUMMARIES.has(k)) return null;
  if (k in LIMITS) {
    const [more, what] = LIMITS[k];
    return { keyword: k, params: { limit: value }, message: `must NOT have ${more} than ${value} ${what}` };
  }
  if (k in COMPARISONS)
    return {
      keyword: k,
      params: { comparison: COMPARISONS[k], limit: value },
      message: `must be ${COMPARISONS[k]} ${value}`,
    };
  const formatted = Object.hasOwn(FORMATTERS, k) ? FORMATTERS[k](unit, value, parent) : said({}, unit.error);
  return formatted && { keyword: formatted.keyword ?? k, params: formatted.params, message: formatted.message };
}
