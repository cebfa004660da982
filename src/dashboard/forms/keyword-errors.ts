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
  const error = (params: Record<string, unknown>, message: string): KeywordError => ({ keyword: k, params, message });
  if (k in LIMITS) {
    const [more, what] = LIMITS[k];
    return error({ limit: value }, `must NOT have ${more} than ${value} ${what}`);
  }
  if (k in COMPARISONS)
    return error({ comparison: COMPARISONS[k], limit: value }, `must be ${COMPARISONS[k]} ${value}`);
  switch (k) {
    case "type": {
      const type = Array.isArray(value) ? value.join(",") : String(value);
      return error({ type }, `must be ${type}`);
    }
    case "required":
      return error({ missingProperty: quoted(unit) }, `must have required property '${quoted(unit)}'`);
    case "enum":
      return error({ allowedValues: value }, "must be equal to one of the allowed values");
    case "const":
      return error({ allowedValue: value }, "must be equal to constant");
    case "format":
      return error({ format: value }, `must match format "${value}"`);
    case "pattern":
      return error({ pattern: value }, `must match pattern "${value}"`);
    case "multipleOf":
      return error({ multipleOf: value }, `must be multiple of ${value}`);
    case "uniqueItems": {
      const [i, j] = (unit.error.match(/\d+/g) ?? []).map(Number);
      return error({ i, j }, `must NOT have duplicate items (items ## ${j} and ${i} are identical)`);
    }
    case "not":
      return error({}, "must NOT be valid");
    case "anyOf":
      return error({}, "must match a schema in anyOf");
    case "oneOf":
      // ajv names the branches that passed when more than one did; cfworker counts them only.
      return error(
        /\(0 matches\)/.test(unit.error) ? { passingSchemas: null } : {},
        "must match exactly one schema in oneOf",
      );
    case "if": {
      const clause = quoted(unit);
      return error({ failingKeyword: clause }, `must match "${clause}" schema`);
    }
    case "contains":
    case "minContains":
    case "maxContains": {
      const min = (parent?.minContains as number | undefined) ?? 1;
      const max = parent?.maxContains as number | undefined;
      const range = max === undefined ? `at least ${min}` : `at least ${min} and no more than ${max}`;
      return {
        keyword: "contains",
        params: { minContains: min, ...(max === undefined ? {} : { maxContains: max }) },
        message: `must contain ${range} valid item(s)`,
      };
    }
    case "dependentRequired":
    case "dependencies": {
      // cfworker's unit for a dependent schema that failed is a summary like `properties`'.
      if (!/does not have "/.test(unit.error)) return null;
      const [property, missing] = [quoted(unit, 0), quoted(unit, 1)];
      return error(
        { property, missingProperty: missing, depsCount: 1, deps: missing },
        `must have property ${missing} when property ${property} is present`,
      );
    }
    case "propertyNames":
      return error({ propertyName: quoted(unit) }, "property name must be valid");
    case "additionalProperties":
      return value === false
        ? error({ additionalProperty: quoted(unit) }, "must NOT have additional properties")
        : null;
    case "unevaluatedProperties":
      return value === false
        ? error({ unevaluatedProperty: quoted(unit) }, "must NOT have unevaluated properties")
        : null;
    case "unevaluatedItems":
      return value === false ? error({}, "must NOT have unevaluated items") : null;
    case "false":
      return error({}, "boolean schema is false");
    default:
      return error({}, unit.error);
  }
}
