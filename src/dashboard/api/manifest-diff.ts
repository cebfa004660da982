import { diffLines } from "diff";
import { canonical } from "../../manifests/manifest-file-order.ts";
import { manifestText } from "./manifest-text.ts";

/** One change of a manifest against the active one, in words: what a caller of the surface will notice. */
export interface Change {
  /** `+` gained, `-` lost, `~` changed. */
  sign: "+" | "-" | "~";
  /** Where: `tools.include`, `extensions`, `extensionsModules`, `retry`… */
  where: string;
  /** What: a tool, a branch (`echo_monitor`), a module, or the field's name. */
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

const docOf = (v: unknown): Doc => (v && typeof v === "object" && !Array.isArray(v) ? (v as Doc) : {});

// Own keys only: a tool may be named `constructor` or `toString`, which every object inherits.
function mapChanges(where: string, from: unknown, to: unknown): Change[] {
  const [a, b] = [docOf(from), docOf(to)];
  const out: Change[] = [];
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (!Object.hasOwn(a, key)) out.push({ sign: "+", where, what: key });
    else if (!Object.hasOwn(b, key)) out.push({ sign: "-", where, what: key });
    else if (JSON.stringify(canonical(a[key])) !== JSON.stringify(canonical(b[key])))
      out.push({ sign: "~", where, what: key });
  }
  return out;
}

/** A tool's `extensions` value as its list of combos (one combo or a list of them, as the server reads it). */
const combosOf = (v: unknown): unknown[][] =>
  !Array.isArray(v) || !v.length ? [] : Array.isArray(v[0]) ? (v as unknown[][]) : [v];

/**
 * The branches a document's `extensions` bind, by name (`<tool>_<a>_<b>`, as the server names them), each with its
 * items' settings: `echo: [monitor]` and `echo: [[{ name: monitor }]]` bind the same branch, the same way.
 */
function branches(extensions: unknown): Doc {
  const out: Doc = {};
  for (const [tool, value] of Object.entries(docOf(extensions)))
    for (const combo of combosOf(value)) {
      const items = combo.map((i) => (typeof i === "string" ? { name: i } : docOf(i)));
      Object.defineProperty(out, [tool, ...items.map((i) => String(i.name))].join("_"), {
        value: items.map((i) => i.config ?? null),
        enumerable: true,
      });
    }
  return out;
}

/**
 * What activating `next` changes against `current` (null: no manifest is active, the surface is everything
 * registered): the tool selection, the branches the extension combos bind (a changed setting changes its branch), the
 * extension modules, the retry policies.
 */
export function manifestChanges(current: Doc | null, next: Doc): Change[] {
  const from = current ?? {};
  const tools = (d: Doc) => (d.tools ?? {}) as Doc;
  const out = [
    ...listChanges("tools.include", tools(from).include, tools(next).include),
    ...listChanges("tools.exclude", tools(from).exclude, tools(next).exclude),
    ...mapChanges("extensions", branches(from.extensions), branches(next.extensions)),
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
