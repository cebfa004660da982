import type { JsonSchema } from "../../tools/json-schema.ts";

/** A schema the importer cannot represent; the operation using it is refused with the message. */
export class UnrepresentableError extends Error {}

/**
 * Whether the request (input) or the response (output) is described: `readOnly` / `writeOnly` properties are not
 * required on the other side.
 */
export type SchemaContext = "request" | "response";

const MAX_NODES = 20_000;
const MAX_DEPTH = 64;
/** Keywords whose value is one schema. */
const ONE = [
  "items",
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contentSchema",
];
/** Keywords whose value is a list of schemas. */
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const MAP = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];
/** Keywords dropped: OpenAPI-only annotations, or ones that would change how refs and dialects resolve. */
const DROPPED = new Set([
  "nullable",
  "discriminator",
  "xml",
  "externalDocs",
  "example",
  "$schema",
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$comment",
]);

/** Sets `key` as an own property even when it is `__proto__` (an assignment would replace the object's prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Reads a local JSON pointer (`#/components/schemas/Pet`) in the document. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#"))
    throw new UnrepresentableError(`the $ref ${JSON.stringify(ref)} points outside the document`);
  let node: unknown = doc;
  const path = ref.slice(1);
  if (path === "") return doc;
  if (!path.startsWith("/")) throw new UnrepresentableError(`the $ref ${JSON.stringify(ref)} is not a JSON pointer`);
  for (const raw of path.slice(1).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key))
      throw new UnrepresentableError(`the $ref ${JSON.stringify(ref)} points at nothing`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Follows a chain of `$ref`s to a non-schema object (a parameter, a request body, a response). */
export function deref<T = Record<string, unknown>>(doc: unknown, node: unknown): T {
  const seen = new Set<string>();
  while (typeof node === "object" && node !== null && typeof (node as { $ref?: unknown }).$ref === "string") {
    const ref = (node as { $ref: string }).$ref;
    if (seen.has(ref)) throw new UnrepresentableError(`the $ref ${JSON.stringify(ref)} refers to itself`);
    seen.add(ref);
    node = resolvePointer(doc, ref);
  }
  if (typeof node !== "object" || node === null || Array.isArray(node))
    throw new UnrepresentableError("an object is expected where the document has none");
  return node as T;
}

/**
 * Converts OpenAPI schema objects to JSON Schema 2020-12 for one tool (one converter per
 * tool and side). Local `$ref`s are inlined; a ref met again inside its own expansion (a
 * circular schema) becomes `{"$ref": "#/$defs/<Name>"}` and its schema one entry of
 * {@link defs}, which the caller puts at the root of the tool's schema. OpenAPI 3.0's
 * dialect is rewritten: `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`,
 * `example` → `examples`; OpenAPI-only keywords are dropped.
 */
export class SchemaConverter {
  private nodes = 0;
  private readonly names = new Map<string, string>();
  private readonly done = new Map<string, JsonSchema | boolean>();

  constructor(
    private readonly doc: unknown,
    private readonly dialect30: boolean,
    private readonly context: SchemaContext,
  ) {}

  convert(schema: unknown): JsonSchema | boolean {
    return this.walk(schema, [], 0);
  }

  /** The circular schemas met so far, by their `$defs` name (converts each once, which may meet more). */
  defs(): Record<string, JsonSchema | boolean> | undefined {
    for (let grew = true; grew;) {
      grew = false;
      for (const [pointer, name] of this.names) {
        if (this.done.has(name)) continue;
        this.done.set(name, true);
        this.done.set(name, this.walk(resolvePointer(this.doc, pointer), [pointer], 0));
        grew = true;
      }
    }
    return this.done.size ? Object.fromEntries(this.done) : undefined;
  }

  private nameOf(pointer: string): string {
    const known = this.names.get(pointer);
    if (known) return known;
    const last = decodeURIComponent(pointer.split("/").pop() ?? "").replace(/[^A-Za-z0-9_.-]/g, "_") || "schema";
    const taken = new Set(this.names.values());
    let name = last;
    for (let i = 2; taken.has(name); i++) name = `${last}_${i}`;
    this.names.set(pointer, name);
    return name;
  }

  private walk(node: unknown, stack: string[], depth: number): JsonSchema | boolean {
    if (typeof node === "boolean") return node;
    if (typeof node !== "object" || node === null || Array.isArray(node))
      throw new UnrepresentableError("a schema is not an object");
    if (++this.nodes > MAX_NODES)
      throw new UnrepresentableError(
        `its schema is too large to represent (more than ${MAX_NODES} nodes once references are expanded)`,
      );
    if (depth > MAX_DEPTH) throw new UnrepresentableError(`its schema nests deeper than ${MAX_DEPTH} levels`);
    const source = node as Record<string, unknown>;
    if (typeof source.$ref === "string") {
      const ref = source.$ref;
      let resolved: JsonSchema | boolean;
      if (stack.includes(ref)) resolved = { $ref: `#/$defs/${this.nameOf(ref)}` };
      else resolved = this.walk(resolvePointer(this.doc, ref), [...stack, ref], depth + 1);
      // OpenAPI 3.0 ignores a $ref's siblings; 3.1 (JSON Schema) applies them beside it.
      const siblings = Object.keys(source).filter((k) => k !== "$ref" && !k.startsWith("x-"));
      if (this.dialect30 || siblings.length === 0) return resolved;
      const rest = this.walk(Object.fromEntries(siblings.map((k) => [k, source[k]])), stack, depth + 1);
      return typeof rest === "boolean"
        ? resolved
        : { ...rest, allOf: [...((rest.allOf as unknown[]) ?? []), resolved] };
    }
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(source)) {
      if (DROPPED.has(key) || key.startsWith("x-")) continue;
      if (ONE.includes(key) && (typeof value === "object" || typeof value === "boolean") && value !== null) {
        // A tuple `items` (draft 4 style) is 2020-12's prefixItems.
        if (key === "items" && Array.isArray(value)) out.prefixItems = value.map((v) => this.walk(v, stack, depth + 1));
        else out[key] = this.walk(value, stack, depth + 1);
      } else if (LIST.includes(key) && Array.isArray(value))
        out[key] = value.map((v) => this.walk(v, stack, depth + 1));
      else if (MAP.includes(key) && typeof value === "object" && value !== null)
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.walk(v, stack, depth + 1)]));
      else setOwn(out, key, value);
    }
    // A 3.1 schema may still declare draft 4's dialect, whose exclusive bounds are booleans.
    if (this.dialect30 || /draft-0[45]\//.test(String(source.$schema ?? ""))) this.dialect(source, out);
    if (source.example !== undefined && out.examples === undefined) out.examples = [source.example];
    this.dropOtherSideRequired(out);
    if (this.dialect30 && source.nullable === true) return nullable(out);
    return out;
  }

  /** OpenAPI 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` become 2020-12's numbers. */
  private dialect(source: Record<string, unknown>, out: JsonSchema): void {
    for (const [flag, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      if (typeof source[flag] !== "boolean") continue;
      delete out[flag];
      if (source[flag] === true && typeof source[bound] === "number") {
        out[flag] = source[bound];
        delete out[bound];
      }
    }
  }

  /** A `readOnly` property is not required of a request, a `writeOnly` one not of a response. */
  private dropOtherSideRequired(out: JsonSchema): void {
    const props = out.properties as Record<string, unknown> | undefined;
    if (!Array.isArray(out.required) || !props) return;
    const flag = this.context === "request" ? "readOnly" : "writeOnly";
    out.required = (out.required as unknown[]).filter(
      (name) => !(typeof name === "string" && (props[name] as Record<string, unknown> | undefined)?.[flag] === true),
    );
  }
}

/** OpenAPI 3.0 `nullable: true`: null is also accepted. */
function nullable(out: JsonSchema): JsonSchema {
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
  if (Array.isArray(out.type))
    return out.type.includes("null") ? out : { ...out, type: [...(out.type as unknown[]), "null"] };
  return { anyOf: [out, { type: "null" }] };
}
