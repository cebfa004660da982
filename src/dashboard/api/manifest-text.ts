import { parseTree, printParseErrorCode, type ParseError } from "jsonc-parser";
import YAML from "yaml";
import { canonical, MANIFEST_DOCUMENT_KEYS } from "../../manifests/manifest-file-order.ts";

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

/**
 * A manifest as text, as the CLI's `tai manifests export` writes it (src/cli/manifest-file.ts): `name`,
 * `description`, then the document's known fields in a fixed order (unknown ones after), nested keys sorted.
 */
export function manifestText(
  m: { name: string; description?: string | null; document: Record<string, unknown> },
  format: ManifestFormat,
): string {
  const entries: [string, unknown][] = [["name", m.name]];
  if (m.description) entries.push(["description", m.description]);
  const keys = [
    ...MANIFEST_DOCUMENT_KEYS,
    ...Object.keys(m.document).filter((k) => !(MANIFEST_DOCUMENT_KEYS as readonly string[]).includes(k)),
  ];
  for (const k of keys) if (m.document[k] !== undefined) entries.push([k, canonical(m.document[k])]);
  // Entries, not assignments: a typed `__proto__` key stays a key (for the server to refuse), not the prototype.
  const file = Object.fromEntries(entries);
  return format === "json" ? `${JSON.stringify(file, null, 2)}\n` : YAML.stringify(file, { lineWidth: 0 });
}

/** Line and column (1-based) of a character offset in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/**
 * Strict JSON, located: JSON.parse says whether the text is JSON, and jsonc-parser (comments and trailing commas
 * refused) where it first goes wrong — V8's own messages often give no position.
 */
function parseJson(text: string): { value: unknown } | { problem: TextProblem } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    const errors: ParseError[] = [];
    parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    if (!first) return { problem: { message: (e as Error).message } };
    return {
      problem: {
        message: JSON_PROBLEM[printParseErrorCode(first.error)] ?? (e as Error).message,
        ...lineColumn(text, first.offset),
      },
    };
  }
}

/** jsonc-parser's error codes, in words. */
const JSON_PROBLEM: Record<string, string> = {
  InvalidSymbol: "not JSON here",
  InvalidNumberFormat: "not a number",
  PropertyNameExpected: "a property name (in double quotes) was expected",
  ValueExpected: "a value was expected",
  ColonExpected: "a colon was expected",
  CommaExpected: "a comma was expected",
  CloseBraceExpected: "a closing } was expected",
  CloseBracketExpected: "a closing ] was expected",
  EndOfFileExpected: "the text should end here",
  InvalidCommentToken: "JSON has no comments",
  UnexpectedEndOfComment: "JSON has no comments",
  UnexpectedEndOfString: "the string is not closed",
  UnexpectedEndOfNumber: "the number is cut short",
  InvalidUnicode: "an invalid \\u escape",
  InvalidEscapeCharacter: "an invalid escape",
  InvalidCharacter: "a character not allowed in a string",
};

function parseYaml(text: string): { value: unknown } | { problem: TextProblem } {
  const doc = YAML.parseDocument(text, { prettyErrors: true });
  const error = doc.errors[0];
  if (!error) {
    try {
      return { value: doc.toJS() as unknown };
    } catch (e) {
      // Aliases that expand past yaml's limit (a "billion laughs" text) throw here, as the page renders.
      return { problem: { message: `cannot be read: ${(e as Error).message}` } };
    }
  }
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
