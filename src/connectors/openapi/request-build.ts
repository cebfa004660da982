import { ToolError } from "../../errors.ts";
import type { BoundParameter, OpenApiBinding } from "./openapi-binding.ts";
import { isAbsoluteHttp } from "./server-url.ts";

/** The HTTP request one call sends (before the settings' headers and the idempotency key). */
export interface BuiltRequest {
  url: string;
  headers: Record<string, string>;
  body?: string;
}

type Pairs = Array<[string, string]>;

/** RFC 3986 unreserved characters stay; everything else is percent-encoded. */
const encode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
/**
 * `allowReserved`: the reserved characters stay too, except those that would end the value (`&`, `=`, `+`) or the query
 * itself (`#`).
 */
const encodeReserved = (value: string) => encodeURI(value).replace(/[#&=+]/g, (c) => encodeURIComponent(c));

/** Characters a header value may not hold: controls (CR and LF would split the header) and anything past Latin-1. */
const badHeaderValue = (value: string) =>
  [...value].some((c) => {
    const code = c.codePointAt(0)!;
    return (code < 0x20 && code !== 0x09) || code === 0x7f || code > 0xff;
  });

const invalid = (message: string) => new ToolError(message, { kind: "INVALID_INPUT", retryable: false });

/** A header parameter's value, refused when it holds a character no header may carry. */
function headerValue(p: BoundParameter, value: string): string {
  if (badHeaderValue(value))
    throw invalid(
      `the header parameter ${p.name} holds a control character (CR, LF, …) or one outside Latin-1: not sent`,
    );
  return value;
}

const isDotSegment = (segment: string) => segment === "." || segment === "..";

/**
 * Refuses a path whose parameters made a `.` or `..` segment: the URL parser would resolve it, reaching another path
 * than the operation's.
 */
function checkSegments(template: string, path: string, binding: OpenApiBinding): void {
  const own = new Set(template.split("/").filter(isDotSegment));
  if (!path.split("/").some((segment) => isDotSegment(segment) && !own.has(segment))) return;
  const names = binding.parameters.filter((p) => p.in === "path").map((p) => p.name);
  throw invalid(
    `a path parameter (${names.join(", ")}) may not be "." or "..": the URL would leave the operation's path`,
  );
}

const text = (value: unknown): string =>
  typeof value === "string"
    ? value
    : typeof value === "object" && value !== null
      ? JSON.stringify(value)
      : String(value);

/** An object value's entries; an array's items; a primitive's text. */
function shape(
  value: unknown,
):
  | { kind: "primitive"; text: string }
  | { kind: "array"; items: string[] }
  | { kind: "object"; entries: Array<[string, string]> } {
  if (Array.isArray(value)) return { kind: "array", items: value.map(text) };
  if (typeof value === "object" && value !== null)
    return { kind: "object", entries: Object.entries(value).map(([k, v]) => [k, text(v)]) };
  return { kind: "primitive", text: text(value) };
}

/** A path parameter's text (`simple`, `label`, `matrix`), encoded. */
function pathValue(p: BoundParameter, value: unknown): string {
  const v = shape(value);
  const e = encode;
  const list = (sep: string) =>
    v.kind === "primitive"
      ? e(v.text)
      : v.kind === "array"
        ? v.items.map(e).join(sep)
        : v.entries.map(([k, x]) => (p.explode ? `${e(k)}=${e(x)}` : `${e(k)},${e(x)}`)).join(sep);
  if (p.style === "label") return `.${list(p.explode ? "." : ",")}`;
  if (p.style === "matrix") {
    if (v.kind === "primitive") return `;${e(p.name)}=${e(v.text)}`;
    if (v.kind === "array")
      return p.explode
        ? v.items.map((x) => `;${e(p.name)}=${e(x)}`).join("")
        : `;${e(p.name)}=${v.items.map(e).join(",")}`;
    return p.explode
      ? v.entries.map(([k, x]) => `;${e(k)}=${e(x)}`).join("")
      : `;${e(p.name)}=${v.entries.map(([k, x]) => `${e(k)},${e(x)}`).join(",")}`;
  }
  return list(",");
}

/** A query parameter's name/value pairs (`form`, `spaceDelimited`, `pipeDelimited`, `deepObject`), not yet encoded. */
function queryPairs(p: BoundParameter, value: unknown): Pairs {
  const v = shape(value);
  if (v.kind === "primitive") return [[p.name, v.text]];
  if (p.style === "deepObject")
    return v.kind === "object"
      ? v.entries.map(([k, x]) => [`${p.name}[${k}]`, x])
      : v.items.map((x) => [`${p.name}[]`, x]);
  if (v.kind === "array") {
    if (p.style === "spaceDelimited") return [[p.name, v.items.join(" ")]];
    if (p.style === "pipeDelimited") return [[p.name, v.items.join("|")]];
    return p.explode ? v.items.map((x) => [p.name, x]) : [[p.name, v.items.join(",")]];
  }
  return p.explode ? v.entries : [[p.name, v.entries.flat().join(",")]];
}

/** A header or cookie value (`simple` / `form`). */
function plainValue(p: BoundParameter, value: unknown): string {
  const v = shape(value);
  if (v.kind === "primitive") return v.text;
  if (v.kind === "array") return v.items.join(",");
  return v.entries.map(([k, x]) => (p.explode ? `${k}=${x}` : `${k},${x}`)).join(",");
}

/**
 * Builds the request of one call: the server URL joined with the path (path parameters
 * encoded in their style), the query, header and cookie parameters, and the body (JSON,
 * or a form). Values absent from the input are not sent.
 */
export function buildRequest(
  binding: OpenApiBinding,
  server: string | undefined,
  input: Record<string, unknown>,
): BuiltRequest {
  if (server === undefined || !isAbsoluteHttp(server))
    throw new ToolError(
      `the operation has no absolute server URL${server ? ` (the document says ${JSON.stringify(server)})` : ""}: set the connector's serverUrl`,
      {
        kind: "INVALID_INPUT",
        retryable: false,
      },
    );
  let path = binding.path;
  const query: string[] = [];
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  const cookies: string[] = [];
  for (const p of binding.parameters) {
    const raw = Object.hasOwn(input, p.property) ? input[p.property] : undefined;
    if (raw === undefined || raw === null) continue;
    const value = p.json ? JSON.stringify(raw) : raw;
    if (p.in === "path") path = path.split(`{${p.name}}`).join(pathValue(p, value));
    else if (p.in === "query")
      for (const [k, v] of queryPairs(p, value))
        query.push(`${encode(k)}=${p.allowReserved ? encodeReserved(v) : encode(v)}`);
    else if (p.in === "header") headers[p.name] = headerValue(p, plainValue(p, value));
    else cookies.push(`${p.name}=${encode(plainValue(p, value))}`);
  }
  checkSegments(binding.path, path, binding);
  if (cookies.length) headers.cookie = cookies.join("; ");
  const base = server.endsWith("/") ? server.slice(0, -1) : server;
  const url = `${base}${path.startsWith("/") ? path : `/${path}`}${query.length ? `?${query.join("&")}` : ""}`;
  const request: BuiltRequest = { url, headers };
  const body = binding.body && Object.hasOwn(input, "body") ? input.body : undefined;
  if (binding.body && body !== undefined) {
    headers["content-type"] = binding.body.mediaType;
    request.body = binding.body.encoding === "json" ? JSON.stringify(body) : formBody(body);
  }
  return request;
}

/** An `application/x-www-form-urlencoded` body: arrays repeat their key, objects are sent as JSON text. */
function formBody(body: unknown): string {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ToolError("a form body must be an object", { kind: "INVALID_INPUT", retryable: false });
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) form.append(key, text(item));
  }
  return form.toString();
}
