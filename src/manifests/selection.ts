import type { ManifestDocument } from "./manifest.ts";

/** Whether a pattern uses glob syntax (`*` any run of characters, `?` one character). */
export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/** A name predicate from a manifest's tool selection: included (default all) and not excluded. */
export function selectionOf(doc: ManifestDocument): (name: string) => boolean {
  const include = doc.tools?.include?.map(globToRegExp);
  const exclude = (doc.tools?.exclude ?? []).map(globToRegExp);
  return (name) => (!include || include.some((r) => r.test(name))) && !exclude.some((r) => r.test(name));
}

/** Whether a name or glob matches `name`. */
export function matches(pattern: string, name: string): boolean {
  return globToRegExp(pattern).test(name);
}
