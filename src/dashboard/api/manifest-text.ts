import YAML from "yaml";

/** How the manifest editor shows a manifest: as `tai manifests export` writes it, in YAML or JSON. */
export type ManifestFormat = "yaml" | "json";

/** A manifest as a file holds it: `name`, `description`, and the document's fields at top level. */
export interface ManifestFile {
  name: string;
  description: string | null;
  document: Record<string, unknown>;
}

/** Where the text stops parsing, 1-based, when the parser says. */
export interface TextProblem {
  message: string;
  line?: number;
  column?: number;
}

export type ParsedManifest = { file: ManifestFile; problem?: undefined } | { file?: undefined; problem: TextProblem };

const DOCUMENT_KEYS = ["tools", "extensions", "extensionsModules", "retry"] as const;

/** Objects with their keys sorted, recursively: two documents that mean the same read the same. */
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

/**
 * A manifest as text, as the CLI's `tai manifests export` writes it (src/cli/manifest-file.ts): `name`,
 * `description`, then the document's known fields in a fixed order (unknown ones after), nested keys sorted.
 */
export function manifestText(
  m: { name: string; description?: string | null; document: Record<string, unknown> },
  format: ManifestFormat,
): string {
  const file: Record<string, unknown> = { name: m.name };
  if (m.description) file.description = m.description;
  const keys = [
    ...DOCUMENT_KEYS,
    ...Object.keys(m.document).filter((k) => !(DOCUMENT_KEYS as readonly string[]).includes(k)),
  ];
  for (const k of keys) if (m.document[k] !== undefined) file[k] = canonical(m.document[k]);
  return format === "json" ? `${JSON.stringify(file, null, 2)}\n` : YAML.stringify(file, { lineWidth: 0 });
}

/** Line and column (1-based) of a character offset in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

function parseJson(text: string): { value: unknown } | { problem: TextProblem } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    const message = (e as Error).message;
    const said = /line (\d+) column (\d+)/.exec(message);
    if (said) return { problem: { message, line: Number(said[1]), column: Number(said[2]) } };
    const at = /position (\d+)/.exec(message);
    if (at) return { problem: { message, ...lineColumn(text, Number(at[1])) } };
    // "Unexpected end of JSON input": the text stops too early.
    return { problem: { message, ...lineColumn(text, text.length) } };
  }
}

function parseYaml(text: string): { value: unknown } | { problem: TextProblem } {
  const doc = YAML.parseDocument(text, { prettyErrors: true });
  const error = doc.errors[0];
  if (!error) return { value: doc.toJS() as unknown };
  const pos = error.linePos?.[0];
  // Pretty errors end their first line with " at line L, column C:" and quote the text: the note says both apart.
  const message = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:$/, "");
  return { problem: pos ? { message, line: pos.line, column: pos.col } : { message } };
}

/**
 * Reads the editor's text as a manifest file: a parse error with its line and column, or the file's name,
 * description and document (unknown top-level fields stay in the document, for the server to refuse by name).
 */
export function parseManifestText(text: string, format: ManifestFormat): ParsedManifest {
  if (!text.trim()) return { problem: { message: "the text is empty: a manifest needs at least a name" } };
  const parsed = format === "json" ? parseJson(text) : parseYaml(text);
  if ("problem" in parsed) return parsed;
  const value = parsed.value;
  if (!value || typeof value !== "object" || Array.isArray(value))
    return { problem: { message: "must be a mapping with at least a name" } };
  const { name, description, ...document } = value as Record<string, unknown>;
  if (typeof name !== "string" || !name.trim()) return { problem: { message: '"name" is required: a string' } };
  if (description !== undefined && description !== null && typeof description !== "string")
    return { problem: { message: '"description" must be a string' } };
  return { file: { name, description: (description as string | null | undefined) ?? null, document } };
}
