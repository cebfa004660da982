import type { JsonSchema } from "../../tools/json-schema.ts";
import type { BoundParameter, ParameterLocation } from "./openapi-binding.ts";
import { deref, setOwn, UnrepresentableError, type SchemaConverter } from "./schema-convert.ts";

const LOCATIONS: readonly ParameterLocation[] = ["path", "query", "header", "cookie"];
/** The styles each location admits (OpenAPI 3 "Style Values"), the first its default. */
const STYLES: Record<ParameterLocation, readonly string[]> = {
  path: ["simple", "label", "matrix"],
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
};
/** Header parameters the specification says are ignored (the request sets them). */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

export interface ImportedParameters {
  bound: BoundParameter[];
  properties: Record<string, JsonSchema | boolean>;
  required: string[];
}

interface RawParameter {
  name?: unknown;
  in?: unknown;
  required?: unknown;
  description?: unknown;
  deprecated?: unknown;
  style?: unknown;
  explode?: unknown;
  allowReserved?: unknown;
  schema?: unknown;
  content?: Record<string, { schema?: unknown }>;
}

/**
 * The parameters of an operation (the path item's, overridden by the operation's of the
 * same name and location) as input properties. A name is its own property; a name
 * already taken by an earlier location (path, then query, header, cookie) or by `body`
 * is `<in>.<name>`.
 */
export function importParameters(
  doc: unknown,
  pathLevel: unknown,
  operationLevel: unknown,
  converter: SchemaConverter,
  reserved: Set<string>,
): ImportedParameters {
  const byKey = new Map<string, RawParameter>();
  for (const list of [pathLevel, operationLevel]) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new UnrepresentableError("its `parameters` is not a list");
    for (const item of list) {
      const p = deref<RawParameter>(doc, item);
      if (typeof p.name !== "string" || !LOCATIONS.includes(p.in as ParameterLocation))
        throw new UnrepresentableError(`a parameter has no name or an unknown location (${JSON.stringify(p.in)})`);
      byKey.set(`${p.in as string}\n${p.name}`, p);
    }
  }
  const ordered = [...byKey.values()].sort(
    (a, b) => LOCATIONS.indexOf(a.in as ParameterLocation) - LOCATIONS.indexOf(b.in as ParameterLocation),
  );
  const out: ImportedParameters = { bound: [], properties: {}, required: [] };
  const taken = new Set(reserved);
  for (const p of ordered) {
    const location = p.in as ParameterLocation;
    const name = p.name as string;
    if (location === "header" && IGNORED_HEADERS.has(name.toLowerCase())) continue;
    const style = p.style === undefined ? STYLES[location][0] : p.style;
    if (typeof style !== "string" || !STYLES[location].includes(style))
      throw new UnrepresentableError(
        `the ${location} parameter "${name}" has style ${JSON.stringify(style)}, which tai42 does not send`,
      );
    const { schema, json } = parameterSchema(p, name, converter);
    const property = taken.has(name) ? `${location}.${name}` : name;
    if (taken.has(property))
      throw new UnrepresentableError(
        `the ${location} parameter "${name}" collides with another input property "${property}"`,
      );
    taken.add(property);
    setOwn(out.properties, property, annotate(schema, p));
    if (location === "path" || p.required === true) out.required.push(property);
    out.bound.push({
      name,
      in: location,
      property,
      style,
      explode: typeof p.explode === "boolean" ? p.explode : style === "form",
      ...(p.allowReserved === true ? { allowReserved: true } : {}),
      ...(json ? { json: true } : {}),
    });
  }
  return out;
}

function parameterSchema(
  p: RawParameter,
  name: string,
  converter: SchemaConverter,
): { schema: JsonSchema | boolean; json: boolean } {
  if (p.schema !== undefined) return { schema: converter.convert(p.schema), json: false };
  if (p.content && typeof p.content === "object") {
    const [mediaType, media] = Object.entries(p.content)[0] ?? [];
    if (mediaType === undefined || !isJsonMediaType(mediaType))
      throw new UnrepresentableError(
        `the parameter "${name}" is described by ${JSON.stringify(mediaType)} content, which tai42 does not send`,
      );
    return { schema: media?.schema === undefined ? {} : converter.convert(media.schema), json: true };
  }
  return { schema: {}, json: false };
}

/** The parameter's description and deprecation, on its property's schema. */
function annotate(schema: JsonSchema | boolean, p: RawParameter): JsonSchema | boolean {
  if (typeof schema === "boolean") return schema;
  const out = { ...schema };
  if (typeof p.description === "string" && out.description === undefined) out.description = p.description;
  if (p.deprecated === true) out.deprecated = true;
  return out;
}

/** `application/json`, `application/problem+json`, `application/json; charset=utf-8`. */
export function isJsonMediaType(mediaType: string): boolean {
  const essence = mediaType.split(";")[0]!.trim().toLowerCase();
  return essence === "application/json" || /^[a-z]+\/[^\s]+\+json$/.test(essence) || essence === "*/*";
}
