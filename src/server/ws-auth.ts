import { ApiError } from "../errors.ts";

/**
 * The `authorization` value of graphql-ws `connectionParams`, its name matched
 * case-insensitively (`Authorization` as a browser client writes it). Absent means
 * anonymous; a value that is not a string, or two spellings at once, is refused
 * (UNAUTHENTICATED) rather than silently treated as anonymous.
 */
export function connectionAuthorization(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const names = Object.keys(params ?? {}).filter((k) => k.toLowerCase() === "authorization");
  if (!names.length) return undefined;
  if (names.length > 1) throw new ApiError("UNAUTHENTICATED", `connectionParams holds ${names.length} authorization values (${names.join(", ")}); send one`);
  const value = params![names[0]];
  if (typeof value !== "string") throw new ApiError("UNAUTHENTICATED", `connectionParams.${names[0]} must be a string "Bearer <key>" (got ${value === null ? "null" : typeof value})`);
  return value;
}

/** A WebSocket close reason: at most 123 bytes of UTF-8, as the protocol allows. */
export function closeReason(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  return bytes.length <= 123 ? text : bytes.subarray(0, 120).toString("utf8").replace(/\uFFFD$/, "") + "...";
}
