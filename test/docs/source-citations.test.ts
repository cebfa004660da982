import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Every TypeScript source under src/, generated code left out. */
function sources(dir = join(ROOT, "src")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : sources(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/**
 * A file's comments as one line each: the leading `*` or `//` of a continued comment removed, so a citation split over
 * two lines reads whole.
 */
const flat = (text: string) => text.replace(/\n\s*(?:\*|\/\/)\s?/g, " ");

/** The numbered headings of a repo document (`## 4. Failure` → "4"). */
function sections(doc: string): Set<string> {
  return new Set([...readFileSync(join(ROOT, doc), "utf8").matchAll(/^#+\s+(\d+(?:\.\d+)*)\.?\s/gm)].map((m) => m[1]));
}

describe("citations in source comments", () => {
  const files = sources().map((path) => ({ file: relative(ROOT, path), text: flat(readFileSync(path, "utf8")) }));
  const docs = new Set(readdirSync(join(ROOT, "docs")).map((name) => `docs/${name}`));

  it("should scan the sources and find citations (the scan is not vacuous)", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => /docs\/[\w.-]+\.md §\d/.test(f.text)).length).toBeGreaterThan(20);
  });

  it("should cite only documents of the repo, at sections they have", () => {
    const bad: string[] = [];
    for (const { file, text } of files)
      for (const m of text.matchAll(/(docs\/[\w.-]+\.md)(?: §(\d+(?:\.\d+)*))?/g)) {
        if (!docs.has(m[1])) bad.push(`${file}: ${m[0]} (no such document)`);
        else if (m[2] && !sections(m[1]).has(m[2])) bad.push(`${file}: ${m[0]} (no such section)`);
      }
    expect(bad).toEqual([]);
  });

  it("should never cite a section of a specification that is not in the repo", () => {
    const bad = files.flatMap(({ file, text }) =>
      [...text.matchAll(/(?:SPEC(?:\.md)?|API\.md|STYLE\.md)\b[^.\n]{0,12}§?\s?\d*|\((?:§[\d.]+)\)/g)].map(
        (m) => `${file}: ${m[0]}`,
      ),
    );
    expect(bad).toEqual([]);
  });
});
