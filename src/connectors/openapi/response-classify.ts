import { ToolError, type ErrorKind } from "../../errors.ts";
import { toolResult, type ToolResultInit } from "../../tools/result.ts";
import { isJsonMediaType } from "./parameter-import.ts";

/** The longest excerpt of an upstream's body an error message carries. */
export const EXCERPT_CHARS = 500;
/** Response headers a successful call reports in `details.headers`. */
const REPORTED_HEADERS = [
  "content-type",
  "content-length",
  "location",
  "etag",
  "last-modified",
  "retry-after",
  "x-request-id",
  "request-id",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
];

/** The kind each failing status is (docs/connectors.md §9); any other 4xx/5xx is UPSTREAM. */
const KIND_OF_STATUS: Readonly<Record<number, ErrorKind>> = {
  400: "INVALID_INPUT",
  422: "INVALID_INPUT",
  401: "PERMISSION_DENIED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "CONFLICT",
  408: "TIMEOUT",
  504: "TIMEOUT",
  429: "RATE_LIMITED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
};

export function kindOfStatus(status: number): ErrorKind {
  return KIND_OF_STATUS[status] ?? "UPSTREAM";
}

/** `Retry-After` as seconds from now: delta-seconds, or an HTTP date (a past one is 0). */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * A body's first {@link EXCERPT_CHARS} characters, every secret replaced (before whitespace is collapsed, which could
 * hide one), whitespace collapsed.
 */
export function excerpt(body: string, secrets: readonly string[]): string {
  let text = body;
  for (const secret of secrets) if (secret) text = text.split(secret).join("[redacted]");
  text = text.replace(/\s+/g, " ").trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/**
 * What one HTTP response makes of the call: a 2xx is the result (a JSON body, by its
 * content type, as `data`; any other body as text), with the status and selected headers
 * in `details`; anything else a `ToolError` of the status's kind whose message names the
 * status, its reason phrase and an excerpt of the body (secrets replaced in both).
 */
export function classifyResponse(
  operation: string,
  status: number,
  statusText: string,
  headers: Headers,
  body: string,
  secrets: readonly string[],
): ToolResultInit {
  if (status >= 200 && status < 300) {
    const details = {
      status,
      headers: Object.fromEntries(REPORTED_HEADERS.flatMap((h) => (headers.has(h) ? [[h, headers.get(h)!]] : []))),
    };
    const type = headers.get("content-type") ?? "";
    if (body === "") return toolResult({ content: [], details });
    if (isJsonMediaType(type) && type.trim() !== "*/*") {
      try {
        return toolResult({ data: JSON.parse(body) as unknown, details });
      } catch {
        throw new ToolError(
          `${operation} answered HTTP ${status} with a body that is not the JSON its content type says: ${excerpt(body, secrets)}`,
          { kind: "UPSTREAM" },
        );
      }
    }
    return toolResult({ data: body, details });
  }
  const kind = kindOfStatus(status);
  const wait = status === 429 || status === 503 ? retryAfterSeconds(headers.get("retry-after")) : undefined;
  const shown = excerpt(body, secrets);
  // The reason phrase is the upstream's text too: it may echo a credential.
  const reason = excerpt(statusText, secrets);
  const message = `${operation} failed: HTTP ${status}${reason ? ` ${reason}` : ""}${shown ? `: ${shown}` : ""}`;
  throw new ToolError(message, { kind, ...(wait === undefined ? {} : { retryAfterSeconds: wait }) });
}
