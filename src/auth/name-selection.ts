/**
 * Name selection by names or globs (`*` any run of characters, `?` one character): what a manifest's `tools` block
 * selects (src/manifests/selection.ts) and what a manifest-scoped key may run (auth/key-scope.ts) share this one rule.
 */

/** Which names a selection keeps: included (absent: all) and not excluded. */
export interface NameSelection {
  include?: string[];
  exclude?: string[];
}

export function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/** A name predicate from a selection: included (default all) and not excluded. */
export function selects(selection: NameSelection | undefined): (name: string) => boolean {
  const include = selection?.include?.map(globToRegExp);
  const exclude = (selection?.exclude ?? []).map(globToRegExp);
  return (name) => (!include || include.some((r) => r.test(name))) && !exclude.some((r) => r.test(name));
}
