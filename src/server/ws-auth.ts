import { ApiError } from "../errors.ts";

/**
 * The `authorization` value of graphql-ws `connectionParams` (or of another map of
 * names to values, `where` naming it in errors), its name matched case-insensitively
 * (`Authorization` as a browser client writes it). Absent means anonymous; a value that
 * is not a string, or two spellings at once, is refused (UNAUTHENTICATED) rather than
 * silently treated as anonymous.
 */
export function connectionAuthorization(
  params: Readonly<Record<string, unknown>> | undefined,
  where = "connectionParams",
): string | undefined {
  const names = Object.keys(params ?? {}).filter((k) => k.toLowerCase() === "authorization");
  if (!names.length) return undefined;
  if (names.length > 1)
    throw new ApiError(
      "UNAUTHENTICATED",
      `${where} holds ${names.length} authorization values (${names.join(", ")}); send one`,
    );
  const value = params![names[0]];
  if (typeof value !== "string")
    throw new ApiError(
      "UNAUTHENTICATED",
      `${where}.${names[0]} must be a string "Bearer <key>" (got ${value === null ? "null" : typeof value})`,
    );
  return value;
}

/**
 * The `authorization` header a graphql-ws operation carries in `extensions.headers`, its
 * name matched case-insensitively: where GraphiQL (through `@graphql-tools/url-loader`)
 * puts what its Headers tab holds. Undefined when it carries none; refused like
 * {@link connectionAuthorization} when malformed.
 */
export function operationAuthorization(
  extensions: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  const headers = extensions?.headers;
  if (headers === undefined || headers === null) return undefined;
  if (typeof headers !== "object" || Array.isArray(headers))
    throw new ApiError("UNAUTHENTICATED", "extensions.headers must be an object of header names to values");
  return connectionAuthorization(headers as Record<string, unknown>, "extensions.headers");
}

/** A WebSocket close reason: at most 123 bytes of UTF-8, as the protocol allows. */
export function closeReason(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  return bytes.length <= 123
    ? text
    : bytes
        .subarray(0, 120)
        .toString("utf8")
        .replace(/\uFFFD$/, "") + "...";
}
