/**
 * The order a manifest is written in as a file (`tai manifests export`, the dashboard's manifest editor): `name`,
 * `description`, then these document fields, nested keys sorted. Pure: the dashboard bundles it.
 */
export const MANIFEST_DOCUMENT_KEYS = ["tools", "extensions", "extensionsModules", "retry"] as const;

/** Objects with their keys sorted, recursively: two documents that mean the same read the same (PostgreSQL's jsonb
 * reorders keys anyway). */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}
