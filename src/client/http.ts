import { print, type DocumentNode } from "graphql";
import { TaiGraphQLError, TaiTransportError } from "./errors.ts";
import { authorizationOf, type Credential, type WireRequest, type WireResult } from "./transport.ts";

const printed = new WeakMap<object, string>();

/** The query text of a document (printed once per document). */
export function queryOf(document: object): string {
  let text = printed.get(document);
  if (text === undefined) printed.set(document, (text = print(document as DocumentNode)));
  return text;
}

/** Where and how requests go over HTTP. */
export interface HttpOptions {
  url: string;
  apiKey?: Credential;
  fetch: typeof fetch;
}

/**
 * POSTs one operation to /graphql as JSON (the content type also satisfies the server's
 * CSRF prevention) and returns its `data`. Throws {@link TaiGraphQLError} when the answer
 * carries errors, and {@link TaiTransportError} when there is no GraphQL answer at all.
 * An aborted `signal` rejects with its reason, as fetch does.
 */
export async function postOperation(
  http: HttpOptions,
  request: WireRequest,
  signal?: AbortSignal | undefined,
): Promise<unknown> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/graphql-response+json, application/json",
  };
  const authorization = authorizationOf(http.apiKey);
  if (authorization) headers.authorization = authorization;
  // Called without a receiver: a browser's fetch refuses to run as a method of another object.
  const send = http.fetch;
  let res: Response;
  try {
    res = await send(http.url, { method: "POST", headers, body: JSON.stringify(request), signal: signal ?? null });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new TaiTransportError(`could not reach ${http.url}: ${(e as Error).message}`, { cause: e });
  }
  const type = res.headers.get("content-type") ?? "";
  if (!/\bjson\b/i.test(type)) {
    throw new TaiTransportError(
      `the server answered HTTP ${res.status} with ${type || "no content type"}, not a GraphQL response`,
      { status: res.status },
    );
  }
  let body: WireResult;
  try {
    body = (await res.json()) as WireResult;
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new TaiTransportError(`the server's HTTP ${res.status} answer is not valid JSON`, {
      status: res.status,
      cause: e,
    });
  }
  if (body.errors?.length) throw new TaiGraphQLError(body.errors, body.data ?? undefined);
  if (body.data === undefined || body.data === null)
    throw new TaiTransportError(`the server answered HTTP ${res.status} with neither data nor errors`, {
      status: res.status,
    });
  return body.data;
}
