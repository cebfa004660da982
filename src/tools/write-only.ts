import type { JsonSchema } from "./json-schema.ts";
import { stringsIn } from "../secrets/scrub.ts";

/**
 * Every string of `value` found at a place its schema marks `writeOnly: true` (JSON
 * Schema's own "sent, never read back"; zod: `.meta({ writeOnly: true })`): the input's
 * declared secrets, known before the run is first stored (docs/tool-authoring.md). The
 * walk follows `properties`, `patternProperties`, `additionalProperties`, `items`,
 * `prefixItems`, `allOf`/`anyOf`/`oneOf`, `if`/`then`/`else` and local `$ref`s; it reads
 * any value, valid or not (a refused input is stored too), and never throws.
 */
export function writeOnlyStrings(schema: JsonSchema, value: unknown): string[] {
  if (!declaresWriteOnly(schema)) return [];
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (s: unknown, v: unknown, depth: number): void => {
    if (!s || typeof s !== "object" || Array.isArray(s) || depth > 64 || v === undefined) return;
    const node = s as Record<string, unknown>;
    if (node.writeOnly === true) return void out.push(...stringsIn(v));
    if (typeof node.$ref === "string") {
      // Each reference once per place: a recursive schema cannot loop.
      const key = `${node.$ref}\u0000${depth}`;
      if (!seen.has(key)) {
        seen.add(key);
        walk(resolveRef(schema, node.$ref), v, depth + 1);
      }
    }
    for (const k of ["allOf", "anyOf", "oneOf"] as const)
      if (Array.isArray(node[k])) for (const sub of node[k] as unknown[]) walk(sub, v, depth + 1);
    for (const k of ["if", "then", "else"] as const) walk(node[k], v, depth + 1);
    if (Array.isArray(v)) {
      const prefix = Array.isArray(node.prefixItems) ? (node.prefixItems as unknown[]) : [];
      v.forEach((item, i) => walk(i < prefix.length ? prefix[i] : node.items, item, depth + 1));
    } else if (v && typeof v === "object") {
      const props = (node.properties ?? {}) as Record<string, unknown>;
      const patterns = Object.entries((node.patternProperties ?? {}) as Record<string, unknown>);
      for (const [k, item] of Object.entries(v)) {
        const own = Object.hasOwn(props, k) ? props[k] : undefined;
        if (own !== undefined) walk(own, item, depth + 1);
        const matched = patterns.filter(([p]) => safeTest(p, k));
        for (const [, sub] of matched) walk(sub, item, depth + 1);
        if (own === undefined && !matched.length) walk(node.additionalProperties, item, depth + 1);
      }
    }
  };
  walk(schema, value, 0);
  return out;
}

/** Per schema object: whether `writeOnly` appears in it at all (most schemas: no walk per dispatch). */
const declaring = new WeakMap<JsonSchema, boolean>();

function declaresWriteOnly(schema: JsonSchema): boolean {
  let known = declaring.get(schema);
  if (known === undefined) declaring.set(schema, (known = JSON.stringify(schema).includes('"writeOnly":true')));
  return known;
}

/** A local JSON pointer reference (`#/$defs/x`), or undefined. */
function resolveRef(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!node || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function safeTest(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, "u").test(key);
  } catch {
    return false;
  }
}
