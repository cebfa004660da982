import $RefParser from "@apidevtools/json-schema-ref-parser";
import { parse as parseYaml } from "yaml";
import { isToolError, ToolError } from "../../errors.ts";
import { readBounded } from "./bounded-body.ts";

/** A parsed OpenAPI 3.x document (plain JSON). */
export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths?: Record<string, unknown> };

/** The most a document (or an external file it refers to) may weigh. */
const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** A document tai42 cannot import at all: the connect fails with the reason. */
export function refusedDocument(reason: string): ToolError {
  return new ToolError(`the OpenAPI document cannot be imported: ${reason}`, { kind: "UPSTREAM", retryable: false });
}

/** Parses a document's text (JSON, else YAML); throws {@link refusedDocument} when it is neither. */
export function parseDocumentText(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{")) {
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw refusedDocument(`it is not valid JSON (${(e as Error).message.split("\n")[0]})`);
    }
  }
  try {
    return parseYaml(text, { maxAliasCount: 1000 }) as unknown;
  } catch (e) {
    throw refusedDocument(`it is neither JSON nor valid YAML (${(e as Error).message.split("\n")[0]})`);
  }
}

/** Checks that a parsed value is an OpenAPI 3.x document; a Swagger 2.0 one is refused as a whole. */
export function checkVersion(value: unknown): OpenApiDocument {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw refusedDocument("it is not an object");
  const doc = value as Record<string, unknown>;
  if (doc.swagger !== undefined)
    throw refusedDocument(
      `OpenAPI 3.x only: this is a Swagger ${String(doc.swagger)} document (convert it to OpenAPI 3 first)`,
    );
  if (typeof doc.openapi !== "string")
    throw refusedDocument("it has no `openapi` version field (not an OpenAPI document)");
  if (!/^3\.[0-9]+(\.[0-9]+)?/.test(doc.openapi))
    throw refusedDocument(`OpenAPI 3.x only: this document is version ${doc.openapi}`);
  if (doc.paths !== undefined && (typeof doc.paths !== "object" || doc.paths === null || Array.isArray(doc.paths)))
    throw refusedDocument("`paths` is not an object");
  return doc as OpenApiDocument;
}

/** Reads a URL's text through the connection's fetch; a failure is the connect's error (no header in it). */
export async function fetchText(fetchFn: typeof fetch, url: string, signal?: AbortSignal): Promise<string> {
  let response: Response;
  try {
    response = await fetchFn(url, {
      headers: { accept: "application/json, application/yaml, text/yaml, */*" },
      redirect: "follow",
      ...(signal ? { signal } : {}),
    });
  } catch (e) {
    if (isToolError(e)) throw e;
    throw new ToolError(`the OpenAPI document at ${url} could not be fetched: ${(e as Error).message}`, {
      kind: "NETWORK",
      cause: e,
    });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new ToolError(`the OpenAPI document at ${url} could not be fetched: HTTP ${response.status}`, {
      kind: response.status === 401 || response.status === 403 ? "PERMISSION_DENIED" : "UNAVAILABLE",
    });
  }
  try {
    return await readBounded(response, MAX_DOCUMENT_BYTES, () =>
      refusedDocument(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`),
    );
  } catch (e) {
    if (isToolError(e)) throw e;
    throw new ToolError(`the OpenAPI document at ${url} could not be read: ${(e as Error).message}`, {
      kind: "NETWORK",
    });
  }
}

/**
 * The deepest nesting a document may have: real documents stay far below; deeper ones would exhaust the stack of any
 * recursive reader.
 */
const MAX_NESTING = 512;

/**
 * Walks the document without recursion: refuses one nested deeper than {@link MAX_NESTING}
 * levels, and says whether any `$ref` points outside it.
 */
function hasExternalRef(doc: unknown): boolean {
  const pending: Array<[unknown, number]> = [[doc, 0]];
  let external = false;
  while (pending.length) {
    const [node, depth] = pending.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > MAX_NESTING) throw refusedDocument(`it nests deeper than ${MAX_NESTING} levels`);
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) external = true;
      pending.push([value, depth + 1]);
    }
  }
  return external;
}

/** The directory a document URL's relative references may reach: its own folder and below. */
function baseOf(documentUrl: string): string {
  const url = new URL(documentUrl);
  url.search = "";
  url.hash = "";
  return new URL(".", url).href;
}

/**
 * Brings the document's external `$ref`s inside it with json-schema-ref-parser's
 * `bundle` (they become internal refs). External files are read only through the
 * connection's fetch and only under the document URL's folder; never from the local file
 * system. A stored document (no URL) may refer only to itself.
 */
export async function bundleExternalRefs(
  doc: OpenApiDocument,
  documentUrl: string | undefined,
  fetchFn: typeof fetch,
): Promise<OpenApiDocument> {
  if (!hasExternalRef(doc)) return doc;
  if (documentUrl === undefined)
    throw refusedDocument(
      "it refers to external files, but a stored document may only refer to itself (use documentUrl)",
    );
  const base = baseOf(documentUrl);
  // ref-parser wraps a reader's error in its own words: the first refusal is kept to be named.
  let refusal: string | undefined;
  try {
    return (await $RefParser.bundle(documentUrl, structuredClone(doc), {
      resolve: {
        file: false,
        http: false,
        external: true,
        tai42: {
          order: 1,
          canRead: () => true,
          read: async (file: { url: string }) => {
            if (!file.url.startsWith(base)) {
              refusal ??= `${file.url} is outside the document's folder ${base}`;
              throw new Error(refusal);
            }
            return fetchText(fetchFn, file.url).catch((e: unknown) => {
              refusal ??= (e as Error).message;
              throw e;
            });
          },
        },
      },
    })) as OpenApiDocument;
  } catch (e) {
    if (isToolError(e)) throw e;
    throw refusedDocument(`an external $ref could not be resolved: ${refusal ?? (e as Error).message.split("\n")[0]}`);
  }
}
