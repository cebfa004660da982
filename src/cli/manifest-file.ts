import { extname } from "node:path";
import YAML from "yaml";
import type { ManifestInput } from "../manifests/manifest-service.ts";
import type { ManifestDocument } from "../manifests/manifest.ts";
import { canonical, MANIFEST_DOCUMENT_KEYS } from "../manifests/manifest-file-order.ts";

export type FileFormat = "json" | "yaml";

/** The file format a path's extension names. */
export function formatOf(path: string): FileFormat {
  const ext = extname(path).toLowerCase();
  if (ext === ".json") return "json";
  if (ext === ".yaml" || ext === ".yml") return "yaml";
  throw new Error(`"${path}": a manifest file must end in .json, .yaml or .yml`);
}

/**
 * A manifest as a file: `name`, `description`, then the document's fields at top level
 * in a fixed order, nested keys sorted. Export → import → export is byte-identical.
 */
export function serializeManifest(
  m: { name: string; description?: string | null; document: ManifestDocument },
  format: FileFormat,
): string {
  const file: Record<string, unknown> = { name: m.name };
  if (m.description) file.description = m.description;
  for (const k of MANIFEST_DOCUMENT_KEYS) if (m.document[k] !== undefined) file[k] = canonical(m.document[k]);
  return format === "json" ? `${JSON.stringify(file, null, 2)}\n` : YAML.stringify(file, { lineWidth: 0 });
}

/** Parses a manifest file; unknown top-level fields are kept in the document (and refused by validation). */
export function parseManifest(text: string, format: FileFormat, path: string): ManifestInput {
  let parsed: unknown;
  try {
    parsed = format === "json" ? JSON.parse(text) : YAML.parse(text);
  } catch (e) {
    throw new Error(`"${path}" is not valid ${format.toUpperCase()}: ${(e as Error).message}`, { cause: e });
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error(`"${path}" must hold a mapping with at least "name"`);
  const { name, description, ...document } = parsed as Record<string, unknown>;
  if (typeof name !== "string") throw new Error(`"${path}": "name" is required and must be a string`);
  if (description !== undefined && description !== null && typeof description !== "string")
    throw new Error(`"${path}": "description" must be a string`);
  return { name, description: (description as string | undefined) ?? null, document: document as ManifestDocument };
}
