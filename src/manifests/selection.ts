import { globToRegExp, selects } from "../auth/name-selection.ts";
import type { ManifestDocument } from "./manifest.ts";

/** Whether a pattern uses glob syntax (`*` any run of characters, `?` one character). */
export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

/** A name predicate from a manifest's tool selection: included (default all) and not excluded. */
export function selectionOf(doc: ManifestDocument): (name: string) => boolean {
  return selects(doc.tools);
}

/** Whether a name or glob matches `name`. */
export function matches(pattern: string, name: string): boolean {
  return globToRegExp(pattern).test(name);
}
