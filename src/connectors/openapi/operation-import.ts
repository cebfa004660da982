import type { Tier } from "../../auth/roles.ts";
import { schemaProblems, type JsonSchema } from "../../tools/json-schema.ts";
import { describeIssues } from "../../errors.ts";
import type { RefusedTool, UpstreamListing, UpstreamTool } from "../connector-kind.ts";
import type { OpenApiBinding } from "./openapi-binding.ts";
import type { OpenApiDocument } from "./openapi-document.ts";
import { importParameters, isJsonMediaType } from "./parameter-import.ts";
import { deref, SchemaConverter, UnrepresentableError } from "./schema-convert.ts";
import { firstServer } from "./server-url.ts";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const FORM = "application/x-www-form-urlencoded";
/** The most an operation's input or output schema may weigh once expanded. */
const MAX_SCHEMA_CHARS = 256 * 1024;

/** Whether a request with this method reads only (`proposedTier` read, no `Idempotency-Key`). */
export function isReadMethod(method: string): boolean {
  return READ_METHODS.has(method.toUpperCase());
}

/**
 * One tool per operation of the document's `paths` (docs/connectors.md §9); an
 * operation the importer cannot represent is refused with the reason. Webhooks and
 * callbacks are requests the service sends, not operations to call: they are not imported.
 */
export function importOperations(doc: OpenApiDocument, documentUrl: string | undefined): UpstreamListing {
  const tools: UpstreamTool[] = [];
  const refused: RefusedTool[] = [];
  const names = new Set<string>();
  const docServer = firstServer(doc.servers, documentUrl);
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    let item: Record<string, unknown>;
    try {
      item = deref(doc, rawItem);
    } catch (e) {
      refused.push({ name: path, reason: (e as Error).message });
      continue;
    }
    const pathServer = firstServer(item.servers, documentUrl) ?? docServer;
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (operation === undefined) continue;
      const upper = method.toUpperCase();
      const name =
        typeof operation?.operationId === "string" && operation.operationId !== ""
          ? operation.operationId
          : `${upper} ${path}`;
      if (names.has(name)) {
        refused.push({ name, reason: `another operation of the document has the name "${name}" (operationId)` });
        continue;
      }
      names.add(name);
      try {
        if (typeof operation !== "object" || operation === null)
          throw new UnrepresentableError("the operation is not an object");
        const server = firstServer(operation.servers, documentUrl) ?? pathServer;
        tools.push(importOperation(doc, name, upper, path, item, operation, server));
      } catch (e) {
        if (!(e instanceof UnrepresentableError)) throw e;
        refused.push({ name, reason: e.message });
      }
    }
  }
  return { tools, refused };
}

function importOperation(
  doc: OpenApiDocument,
  name: string,
  method: string,
  path: string,
  item: Record<string, unknown>,
  operation: Record<string, unknown>,
  server: string | undefined,
): UpstreamTool {
  const dialect30 = doc.openapi.startsWith("3.0");
  const input = new SchemaConverter(doc, dialect30, "request");
  const body = requestBody(doc, operation.requestBody, input);
  const params = importParameters(doc, item.parameters, operation.parameters, input, new Set(body ? ["body"] : []));
  for (const p of params.bound)
    if (p.in === "path" && !path.includes(`{${p.name}}`))
      throw new UnrepresentableError(`the path parameter "${p.name}" is not in the path ${path}`);
  for (const [, used] of path.matchAll(/\{([^}]+)\}/g)) {
    if (!params.bound.some((p) => p.in === "path" && p.name === used))
      throw new UnrepresentableError(`the path ${path} uses {${used}}, which no path parameter describes`);
  }
  const properties = { ...params.properties, ...(body ? { body: body.schema } : {}) };
  const required = [...params.required, ...(body?.binding.required ? ["body"] : [])];
  const defs = input.defs();
  const inputSchema: JsonSchema = {
    type: "object",
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
    ...(defs ? { $defs: defs } : {}),
  };
  checkSchema(inputSchema, "input");
  const outputSchema = successSchema(doc, operation.responses, dialect30);
  if (outputSchema) checkSchema(outputSchema, "output");
  const binding: OpenApiBinding = {
    method,
    path,
    ...(server ? { server } : {}),
    parameters: params.bound,
    ...(body ? { body: body.binding } : {}),
  };
  const summary = typeof operation.summary === "string" ? operation.summary.trim() : "";
  const description = [summary, typeof operation.description === "string" ? operation.description.trim() : ""]
    .filter(Boolean)
    .join("\n\n");
  const tier: Tier = isReadMethod(method) ? "read" : "write";
  return {
    name,
    ...(summary ? { title: summary } : {}),
    description: description || `${method} ${path}`,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    ...(operation.deprecated === true ? { annotations: { deprecated: true } } : {}),
    proposedTier: tier,
    binding: binding as unknown as Record<string, unknown>,
  };
}

/** A JSON body is `body` as its schema says; a form body `body` as an object; other media types are refused. */
function requestBody(
  doc: unknown,
  raw: unknown,
  converter: SchemaConverter,
): { schema: JsonSchema | boolean; binding: NonNullable<OpenApiBinding["body"]> } | undefined {
  if (raw === undefined) return undefined;
  const body = deref<{ content?: Record<string, { schema?: unknown }>; required?: unknown; description?: unknown }>(
    doc,
    raw,
  );
  const content = body.content ?? {};
  const types = Object.keys(content);
  if (types.length === 0) return undefined;
  const json = types.find(isJsonMediaType);
  const form = types.find((t) => t.split(";")[0]!.trim().toLowerCase() === FORM);
  const chosen = json ?? form;
  if (chosen === undefined) {
    const multipart = types.some((t) => t.toLowerCase().startsWith("multipart/"));
    throw new UnrepresentableError(
      `its request body is ${types.join(", ")}: ${multipart ? "multipart bodies (file uploads) are not sent by tai42" : "tai42 sends JSON and form (application/x-www-form-urlencoded) bodies only"}`,
    );
  }
  const rawSchema = content[chosen]?.schema;
  let schema = rawSchema === undefined ? {} : converter.convert(rawSchema);
  if (typeof schema === "object" && typeof body.description === "string" && schema.description === undefined)
    schema = { ...schema, description: body.description };
  const mediaType = chosen === "*/*" ? "application/json" : chosen;
  return { schema, binding: { mediaType, required: body.required === true, encoding: json ? "json" : "form" } };
}

/**
 * The output schema: the JSON schema of the success (2xx) responses, when every one of
 * them has a JSON body whose schema is an object (MCP serves object output schemas only).
 * Several distinct ones are offered as `anyOf`. Otherwise none: the body is still the
 * run's `data`, unchecked.
 */
function successSchema(doc: unknown, raw: unknown, dialect30: boolean): JsonSchema | undefined {
  if (raw === undefined || raw === null || typeof raw !== "object") return undefined;
  const codes = Object.keys(raw).filter((c) => /^2([0-9]{2}|XX)$/i.test(c));
  if (codes.length === 0) return undefined;
  const output = new SchemaConverter(doc, dialect30, "response");
  const schemas: JsonSchema[] = [];
  for (const code of codes.sort()) {
    const response = deref<{ content?: Record<string, { schema?: unknown }> }>(
      doc,
      (raw as Record<string, unknown>)[code],
    );
    const jsonType = Object.keys(response.content ?? {}).find(isJsonMediaType);
    const schema = jsonType === undefined ? undefined : response.content![jsonType]?.schema;
    if (schema === undefined) return undefined;
    const converted = output.convert(schema);
    if (typeof converted === "boolean" || converted.type !== "object") return undefined;
    if (!schemas.some((s) => JSON.stringify(s) === JSON.stringify(converted))) schemas.push(converted);
  }
  const defs = output.defs();
  const root: JsonSchema = schemas.length === 1 ? { ...schemas[0] } : { type: "object", anyOf: schemas };
  return defs ? { ...root, $defs: { ...((root.$defs as object) ?? {}), ...defs } } : root;
}

function checkSchema(schema: JsonSchema, side: "input" | "output"): void {
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARS)
    throw new UnrepresentableError(
      `its ${side} schema is too large (${size} characters once references are expanded; at most ${MAX_SCHEMA_CHARS})`,
    );
  const problems = schemaProblems(schema);
  if (problems.length)
    throw new UnrepresentableError(
      `its ${side} schema is not valid JSON Schema 2020-12: ${describeIssues(problems).slice(0, 300)}`,
    );
}
