import { ApiError, type Issue } from "../errors.ts";

/**
 * `!ENV` markers: a stored string `"!ENV NAME"` stands for the environment variable
 * NAME, resolved only when used (docs/security-model.md §4).
 */
const MARKER = /^!ENV\s+(.*)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variable a marker names, or null when `value` is not a marker. */
export function markerName(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const m = MARKER.exec(value);
  return m ? m[1].trim() : null;
}

/** Every marker inside `value`, with its JSON-pointer-like path under `path`. */
export function markersIn(value: unknown, path = ""): Array<{ path: string; name: string }> {
  const name = markerName(value);
  if (name !== null) return [{ path, name }];
  if (Array.isArray(value)) return value.flatMap((v, i) => markersIn(v, `${path}/${i}`));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => markersIn(v, `${path}/${k}`));
  return [];
}

/** Whether `value` holds a marker anywhere. */
export function hasMarker(value: unknown): boolean {
  return markersIn(value).length > 0;
}

/**
 * The server's own configuration is never resolvable: every `TAI_*` variable,
 * `DATABASE_URL`, `REDIS_URL`, and the names of `TAI_ENV_DENY` (a trailing `*` matches a
 * prefix).
 */
export function isServerConfigName(name: string, deny: readonly string[] = []): boolean {
  if (name.startsWith("TAI_") || name === "DATABASE_URL" || name === "REDIS_URL") return true;
  return deny.some((d) => (d.endsWith("*") ? name.startsWith(d.slice(0, -1)) : name === d));
}

/** Problems with the markers inside `value`: a malformed variable name. */
export function markerIssues(value: unknown, path = ""): Issue[] {
  return markersIn(value, path).flatMap(({ path: p, name }) =>
    NAME.test(name)
      ? []
      : [{ path: p, message: `"!ENV" must be followed by a variable name like API_TOKEN (got "${name}")` }],
  );
}

/**
 * The write rules of docs/security-model.md §4, checked before anything is stored: a
 * marker naming server configuration is refused for everyone (`INVALID_INPUT`, naming the
 * variable), and only an ADMIN may write a marker at all (`FORBIDDEN`, naming the path).
 */
export function checkMarkerWrite(
  value: unknown,
  path: string,
  options: { admin: boolean; deny: readonly string[] },
): void {
  const markers = markersIn(value, path);
  if (!markers.length) return;
  const denied = markers.filter((m) => isServerConfigName(m.name, options.deny));
  if (denied.length)
    throw new ApiError(
      "INVALID_INPUT",
      `${denied.map((m) => `"!ENV ${m.name}"`).join(", ")} name${denied.length === 1 ? "s" : ""} the server's own configuration, which is never resolvable`,
      denied.map((m) => ({
        path: m.path,
        message: `"!ENV ${m.name}" names the server's own configuration (${m.name}), which is never resolvable`,
      })),
    );
  if (!options.admin)
    throw new ApiError(
      "FORBIDDEN",
      `only an ADMIN may write "!ENV" markers (at ${markers.map((m) => m.path).join(", ")})`,
      markers.map((m) => ({ path: m.path, message: "an !ENV marker may only be written by an ADMIN" })),
    );
}
