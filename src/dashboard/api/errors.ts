/** A readable message for anything a request or a stream threw (the client's errors say what failed). */
export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (e && typeof e === "object" && typeof (e as { message?: unknown }).message === "string") return (e as { message: string }).message;
  return String(e);
}

/** The `extensions.code` of the GraphQL error the client threw (`CONFLICT`, `FORBIDDEN`…), when it has one. */
export function codeOf(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
}
