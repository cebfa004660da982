import type { OutputUnit } from "@cfworker/json-schema";
import type { Compiled } from "./compile.ts";
import { keywordError, type KeywordError } from "./keyword-errors.ts";

/**
 * A validation problem shaped as ajv's `ErrorObject` (what @rjsf/validator-ajv8 hands
 * rjsf): `instancePath` is a JSON pointer into the data (`/items/0/name`), `schemaPath`
 * one into the schema (`#/properties/items/items/required`, through a `$ref` as
 * `.../$ref/...`), `parentSchema` the schema holding the failed keyword.
 */
export interface RawError extends KeywordError {
  instancePath: string;
  schemaPath: string;
  parentSchema?: Record<string, unknown>;
}

/**
 * A keyword whose `false` value cfworker reports twice: once for the keyword, once as the `false` schema each offender
 * met.
 */
const FALSE_WITH_ECHO = new Set(["additionalProperties", "unevaluatedProperties", "unevaluatedItems"]);

function segments(location: string): string[] {
  return location
    .replace(/^#\/?/, "")
    .split("/")
    .filter((s) => s !== "")
    .map((s) => decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The schema at `keywordLocation`'s parent and the keyword's value there, following `$ref`s as cfworker did. */
function keywordAt(compiled: Compiled, keywordLocation: string): { value: unknown; parent?: Record<string, unknown> } {
  const path = segments(keywordLocation);
  let node: unknown = compiled.schema;
  for (const s of path.slice(0, -1)) {
    if (!node || typeof node !== "object") return { value: undefined };
    const here = node as Record<string, unknown>;
    node = s === "$ref" ? compiled.lookup[here.__absolute_ref__ as string] : here[s];
  }
  if (!node || typeof node !== "object") return { value: undefined };
  const parent = node as Record<string, unknown>;
  return { value: parent[path[path.length - 1]], parent };
}

/** cfworker's `#/a/0/b` as ajv's `/a/0/b`, its segments unescaped from URI encoding. */
function instancePath(location: string): string {
  return segments(location)
    .map((s) => `/${s.replace(/~/g, "~0").replace(/\//g, "~1")}`)
    .join("");
}

/** cfworker's output units as ajv's errors: summaries dropped, each keyword with ajv's params and message. */
export function rawErrors(compiled: Compiled, units: OutputUnit[]): RawError[] {
  const errors: RawError[] = [];
  let echo = false;
  for (const unit of units) {
    if (echo && unit.keyword === "false") {
      echo = false;
      continue;
    }
    const { value, parent } = keywordAt(compiled, unit.keywordLocation);
    echo = FALSE_WITH_ECHO.has(unit.keyword) && value === false;
    const error = keywordError(unit, value, parent);
    if (error)
      errors.push({
        ...error,
        instancePath: instancePath(unit.instanceLocation),
        schemaPath: unit.keywordLocation,
        parentSchema: parent,
      });
  }
  return errors;
}
