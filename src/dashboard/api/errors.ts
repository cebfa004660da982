/** A readable message for anything a request or a stream threw (the client's errors say what failed). */
export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (e && typeof e === "object" && typeof (e as { message?: unknown }).message === "string")
    return (e as { message: string }).message;
  return String(e);
}

/** The `extensions.code` of the GraphQL error the client threw (`CONFLICT`, `FORBIDDEN`…), when it has one. */
export function codeOf(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
}

/** One problem of a refused input, at its JSON pointer (`/settings/url`, `/tools/echo/tier`). */
export interface Issue {
  path: string;
  message: string;
}

/** The `extensions.issues` of every GraphQL error the client threw (none: an empty list). */
export function issuesOf(e: unknown): Issue[] {
  const errors = (e as { errors?: readonly { extensions?: { issues?: unknown } }[] } | null)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((err) => (Array.isArray(err.extensions?.issues) ? (err.extensions.issues as Issue[]) : []));
}
