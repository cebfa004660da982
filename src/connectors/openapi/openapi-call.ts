import { isToolError, ToolError } from "../../errors.ts";
import type { ToolResultInit } from "../../tools/result.ts";
import type { UpstreamCall, UpstreamTool } from "../connector-kind.ts";
import { bindingOf } from "./openapi-binding.ts";
import { isReadMethod } from "./operation-import.ts";
import { readBounded } from "./bounded-body.ts";
import { buildRequest } from "./request-build.ts";
import { classifyResponse } from "./response-classify.ts";
import { secretForms } from "./secret-forms.ts";
import { resolveAgainst } from "./server-url.ts";

/** The most of a response body a call reads: past it the body is cancelled unread. */
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** What a connection knows when it calls: the resolved settings' parts a request uses. */
export interface CallTarget {
  fetch: typeof fetch;
  /** The connector's `serverUrl` (resolved against `documentUrl`): wins over the document's servers. */
  serverUrl?: string;
  /** The settings' headers, resolved (sealed values). */
  headers: Record<string, string>;
}

/**
 * Calls one imported operation through the connection's fetch: builds the request from
 * the binding and the input, sends the settings' headers (after the parameters: the
 * ADMIN's win) and an `Idempotency-Key` on every non-read method, and waits at most
 * `call.timeoutMs` (TIMEOUT) or until the run's signal fires.
 */
export async function callOperation(
  target: CallTarget,
  tool: UpstreamTool,
  input: Record<string, unknown>,
  call: UpstreamCall,
): Promise<ToolResultInit> {
  const binding = bindingOf(tool.binding);
  const request = buildRequest(binding, target.serverUrl ?? binding.server, input);
  const headers: Record<string, string> = {
    accept: "application/json, */*;q=0.5",
    ...request.headers,
    ...target.headers,
  };
  if (!isReadMethod(binding.method)) headers["idempotency-key"] = call.idempotencyKey;
  const secrets = secretForms(Object.values(target.headers));
  for (const secret of secrets) call.ctx.redact(secret);
  const operation = `${tool.name} (${binding.method} ${binding.path})`;
  const timeout = AbortSignal.timeout(Math.max(1, call.timeoutMs));
  const signal = AbortSignal.any([call.ctx.signal, timeout]);
  const stopped = (error: unknown): ToolError => {
    if (call.ctx.signal.aborted)
      return new ToolError(`${operation} was cancelled`, { kind: "CANCELLED", cause: error });
    if (timeout.aborted)
      return new ToolError(`${operation} had no answer within ${call.timeoutMs} ms`, { kind: "TIMEOUT", cause: error });
    return new ToolError(`${operation} could not reach ${new URL(request.url).origin}: ${causeOf(error)}`, {
      kind: "NETWORK",
      cause: error,
    });
  };
  let response: Response;
  try {
    response = await sendFollowingSameOrigin(
      target.fetch,
      request.url,
      { method: binding.method, headers, ...(request.body === undefined ? {} : { body: request.body }), signal },
      operation,
    );
  } catch (error) {
    if (isToolError(error)) throw error;
    throw stopped(error);
  }
  let body: string;
  try {
    body = await readBounded(
      response,
      MAX_RESPONSE_BYTES,
      () =>
        new ToolError(
          `${operation} answered HTTP ${response.status} with a body larger than ${MAX_RESPONSE_BYTES} bytes`,
          { kind: "UPSTREAM" },
        ),
    );
  } catch (error) {
    if (isToolError(error)) throw error;
    throw stopped(error);
  }
  return classifyResponse(operation, response.status, response.statusText, response.headers, body, secrets);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/**
 * Sends a request, following redirects only within its origin: the settings' headers
 * (sealed credentials) never travel to another origin. A redirect elsewhere fails
 * UPSTREAM naming where it pointed. A 303 continues as a body-less GET.
 */
async function sendFollowingSameOrigin(
  fetchFn: typeof fetch,
  url: string,
  init: RequestInit,
  operation: string,
): Promise<Response> {
  let current = new URL(url);
  let request = init;
  for (let hop = 0; ; hop++) {
    const response = await fetchFn(current.href, { ...request, redirect: "manual" });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => undefined);
    const next = new URL(location, current);
    if (next.origin !== current.origin)
      throw new ToolError(
        `${operation} was redirected (HTTP ${response.status}) to another origin, ${next.origin}: not followed, the connector's headers would go with it`,
        {
          kind: "UPSTREAM",
        },
      );
    if (hop >= MAX_REDIRECTS)
      throw new ToolError(`${operation} was redirected more than ${MAX_REDIRECTS} times`, { kind: "UPSTREAM" });
    if (response.status === 303) request = { ...request, method: "GET", body: undefined };
    current = next;
  }
}

/** A network failure's own reason (undici puts it in `cause`). */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (cause && typeof cause.code === "string") return cause.code;
  if (cause && typeof cause.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** The connector's serverUrl setting, resolved against the document URL. */
export function settingsServer(serverUrl: string | undefined, documentUrl: string | undefined): string | undefined {
  return serverUrl === undefined ? undefined : resolveAgainst(serverUrl, documentUrl);
}
