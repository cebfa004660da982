import type { ManifestDocument } from "./manifest.ts";
import { isGlob } from "./selection.ts";

/**
 * Where a manifest document names `name` exactly: in its tool selection (a glob names
 * nothing in particular), as a tool its `extensions` attach to, or as a retry target.
 * Paths are JSON pointers into the document; empty when it does not name it.
 */
export function namedAt(doc: ManifestDocument, name: string): string[] {
  const at: string[] = [];
  for (const list of ["include", "exclude"] as const)
    (doc.tools?.[list] ?? []).forEach((n, i) => {
      if (n === name && !isGlob(n)) at.push(`/tools/${list}/${i}`);
    });
  if (doc.extensions && Object.hasOwn(doc.extensions, name)) at.push(`/extensions/${name}`);
  if (doc.retry && Object.hasOwn(doc.retry, name)) at.push(`/retry/${name}`);
  return at;
}
