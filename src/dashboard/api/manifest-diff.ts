import { diffLines } from "diff";
import { canonical, manifestText } from "./manifest-text.ts";

/** One change of a manifest against the active one, in words: what a caller of the surface will notice. */
export interface Change {
  /** `+` gained, `-` lost, `~` changed. */
  sign: "+" | "-" | "~";
  /** Where: `tools.include`, `extensions`, `extensionsModules`, `retry`… */
  where: string;
  /** What: a tool, a module, or the field's name. */
  what: string;
}

/** A line of the canonical YAML, kept, added or removed. */
export interface DiffLine {
  sign: " " | "+" | "-";
  text: string;
}

type Doc = Record<string, unknown>;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function listChanges(where: string, from: unknown, to: unknown): Change[] {
  const [a, b] = [new Set(strings(from)), new Set(strings(to))];
  return [
    ...[...b].filter((x) => !a.has(x)).map((what): Change => ({ sign: "+", where, what })),
    ...[...a].filter((x) => !b.has(x)).map((what): Change => ({ sign: "-", where, what })),
  ];
}

function mapChanges(where: string, from: unknown, to: unknown): Change[] {
  const [a, b] = [(from ?? {}) as Doc, (to ?? {}) as Doc];
  const out: Change[] = [];
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (!(key in a)) out.push({ sign: "+", where, what: key });
    else if (!(key in b)) out.push({ sign: "-", where, what: key });
    else if (JSON.stringify(canonical(a[key])) !== JSON.stringify(canonical(b[key])))
      out.push({ sign: "~", where, what: key });
  }
  return out;
}

/**
 * What activating `next` changes against `current` (null: no manifest is active, the surface is everything
 * registered): the tool selection, each tool's extension combos, the extension modules, the retry policies.
 */
export function manifestChanges(current: Doc | null, next: Doc): Change[] {
  const from = current ?? {};
  const tools = (d: Doc) => (d.tools ?? {}) as Doc;
  const out = [
    ...listChanges("tools.include", tools(from).include, tools(next).include),
    ...listChanges("tools.exclude", tools(from).exclude, tools(next).exclude),
    ...mapChanges("extensions", from.extensions, next.extensions),
    ...listChanges("extensionsModules", from.extensionsModules, next.extensionsModules),
    ...mapChanges("retry", from.retry, next.retry),
  ];
  for (const key of new Set([...Object.keys(from), ...Object.keys(next)]))
    if (!["tools", "extensions", "extensionsModules", "retry"].includes(key))
      out.push(...mapChanges("document", { [key]: from[key] }, { [key]: next[key] }));
  return out;
}

/** The line diff of the two documents' canonical YAML (names and descriptions left out: the documents only). */
export function documentLines(current: Doc | null, next: Doc): DiffLine[] {
  const text = (d: Doc | null) => (d ? manifestText({ name: "", document: d }, "yaml").replace(/^name: ""\n/, "") : "");
  return diffLines(text(current), text(next)).flatMap((part) =>
    part.value
      .replace(/\n$/, "")
      .split("\n")
      .map((line): DiffLine => ({ sign: part.added ? "+" : part.removed ? "-" : " ", text: line })),
  );
}
