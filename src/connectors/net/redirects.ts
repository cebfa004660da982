import { ToolError } from "../../errors.ts";
import { shownHost } from "./network-errors.ts";

/**
 * How the guarded fetch follows a redirect (docs/connectors.md §6): at most
 * {@link MAX_REDIRECTS}, each target checked like the first request. The method and body
 * change as the Fetch standard says; a redirect to another origin keeps only standard
 * headers, so a credential the caller set (`Authorization`, `Cookie`, an API key header,
 * an MCP session id) never reaches a host it was not meant for.
 */

export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The headers a cross-origin redirect keeps: they describe the request, never who sends it. */
const KEPT_ACROSS_ORIGINS = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "cache-control",
  "content-language",
  "content-type",
  "pragma",
  "user-agent",
]);

/** The headers that describe a body, dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = new Set([
  "content-encoding",
  "content-language",
  "content-location",
  "content-type",
  "content-length",
]);

/** One request of a redirect chain. Header names are lower case. */
export interface Hop {
  url: URL;
  method: string;
  headers: [string, string][];
  body: unknown;
}

export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

function resendable(body: unknown): boolean {
  if (body === null || body === undefined || typeof body === "string") return true;
  if (
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof URLSearchParams ||
    body instanceof Blob ||
    body instanceof FormData
  )
    return true;
  return false;
}

/** The request a redirect answered with `status` to `target` makes next. */
export function nextHop(hop: Hop, status: number, target: URL): Hop {
  const toGet =
    status === 303
      ? hop.method !== "GET" && hop.method !== "HEAD"
      : (status === 301 || status === 302) && hop.method === "POST";
  let headers = hop.headers;
  let body = hop.body;
  const method = toGet ? "GET" : hop.method;
  if (toGet) {
    body = undefined;
    headers = headers.filter(([name]) => !BODY_HEADERS.has(name));
  } else if (!resendable(body)) {
    throw new ToolError(
      `connector network: a redirect (${status}) to ${shownHost(target)} would resend a streamed body, which cannot be replayed`,
      {
        kind: "NETWORK",
        retryable: false,
      },
    );
  }
  if (target.origin !== hop.url.origin) headers = headers.filter(([name]) => KEPT_ACROSS_ORIGINS.has(name));
  return { url: target, method, headers, body };
}
